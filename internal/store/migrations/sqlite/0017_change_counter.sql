-- A SQLite process caches what API keys decide and the sessions and
-- endpoints it reads, like a PostgreSQL replica (keycache.go), but SQLite
-- has no notifications: another process on the same file (the admin CLI)
-- can revoke a key or change an endpoint at any time. These triggers count
-- every such change, in whatever process it is made, in one row; the
-- serving process reads the count a few times a second (watchChanges in
-- notify.go) and empties its caches when it moved. The same changes are
-- counted as PostgreSQL's 0014 and 0016 announce them.
CREATE TABLE change_counter (n INTEGER NOT NULL);
INSERT INTO change_counter (n) VALUES (0);

CREATE TRIGGER api_keys_counted_update AFTER UPDATE OF key_hash, project_id, expires_at, revoked_at ON api_keys
BEGIN UPDATE change_counter SET n = n + 1; END;
CREATE TRIGGER api_keys_counted_delete AFTER DELETE ON api_keys
BEGIN UPDATE change_counter SET n = n + 1; END;

CREATE TRIGGER projects_counted_update AFTER UPDATE OF id, tools_version, connections_version ON projects
BEGIN UPDATE change_counter SET n = n + 1; END;
CREATE TRIGGER projects_counted_delete AFTER DELETE ON projects
BEGIN UPDATE change_counter SET n = n + 1; END;

CREATE TRIGGER sessions_counted_update AFTER UPDATE ON sessions
BEGIN UPDATE change_counter SET n = n + 1; END;
CREATE TRIGGER sessions_counted_delete AFTER DELETE ON sessions
BEGIN UPDATE change_counter SET n = n + 1; END;

CREATE TRIGGER endpoints_counted_update AFTER UPDATE ON endpoints
BEGIN UPDATE change_counter SET n = n + 1; END;
CREATE TRIGGER endpoints_counted_delete AFTER DELETE ON endpoints
BEGIN UPDATE change_counter SET n = n + 1; END;
