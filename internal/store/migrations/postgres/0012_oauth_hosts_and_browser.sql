-- Hosts an auth config's OAuth client may be used with, set by the
-- operator (space-separated patterns); empty means the connector
-- definition's allowedHosts.
ALTER TABLE auth_configs ADD COLUMN hosts TEXT NOT NULL DEFAULT '';

-- What a pending OAuth authorization needs at its callback: the connection
-- fields the user typed (JSON, they fill the token URL) and the hash of the
-- nonce in the cookie of the browser that started it.
ALTER TABLE oauth_states ADD COLUMN fields TEXT NOT NULL DEFAULT '';
ALTER TABLE oauth_states ADD COLUMN browser_hash TEXT NOT NULL DEFAULT '';
