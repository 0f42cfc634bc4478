-- MCP access tokens (0024) are cached in each process like API keys
-- (tokencache.go) and dropped when the database says one was revoked (a
-- sign-out, a replayed refresh token, revocation): on commit, channel
-- switchboard_keys receives 'o:' and the token's hash. Deleting a token
-- needs no notification: the cleanup deletes only expired ones, which
-- every use refuses anyway, and a deleted project takes its endpoints and
-- sessions with it. The hash is what the cache is keyed by; the token is
-- never stored, so it is never sent.
CREATE FUNCTION notify_oauth_token_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('switchboard_keys', 'o:' || OLD.token_hash);
    RETURN NULL;
END
$$;

CREATE TRIGGER oauth_tokens_notify
AFTER UPDATE OF revoked_at ON oauth_tokens
FOR EACH ROW EXECUTE FUNCTION notify_oauth_token_change();
