-- Granted scopes (docs/connections.md, "Scopes"). A connection's scopes
-- are what the provider granted, and a token refresh or a client
-- credentials token may narrow them: that rewrite must not drop cached
-- account resolutions, since resolution never decides on scopes (every
-- other change of them comes with an insert or a new revision, which are
-- watched). The executor keeps a refresh's scopes per account revision.
DROP TRIGGER connections_version ON connections;
CREATE TRIGGER connections_version
AFTER INSERT OR DELETE OR UPDATE OF project_id, connector_id, auth_config_id, user_id, global, name, label, is_default, status, revision
ON connections
FOR EACH ROW EXECUTE FUNCTION bump_connections_version();

-- A connect link made for a session's missing_scopes refusal names the
-- account to reconnect (connection_id, there since 0004) and the scopes
-- to ask for beyond what it was granted. An OAuth state keeps the scopes
-- its authorize URL asked for: a token response without a scope field
-- grants exactly those (RFC 6749, section 5.1).
ALTER TABLE connect_links ADD COLUMN scopes TEXT NOT NULL DEFAULT '';
ALTER TABLE oauth_states ADD COLUMN scopes TEXT NOT NULL DEFAULT '';
