-- MCP access tokens (0024) are cached like API keys (tokencache.go): as in
-- 0017, a revocation made by another process on the same file moves the
-- change count, and the serving process empties its caches (its own
-- revocations drop the tokens at once). Deletions are of expired tokens
-- only, which every use refuses anyway.
CREATE TRIGGER oauth_tokens_counted_update AFTER UPDATE OF revoked_at ON oauth_tokens
BEGIN UPDATE change_counter SET n = n + 1; END;
