-- Each process caches what an API key decides (its project and the
-- project's versions; see keycache.go) and drops an entry when the
-- database says it changed. The triggers make every writer say so, in
-- whatever process it runs (a replica, the admin CLI, psql): on commit,
-- channel switchboard_keys receives 'k:' and the key's SHA-256 when a key
-- is revoked, its expiry or project changes or it is deleted, and 'p:' and
-- the project id when a project's tool/catalog or connections version
-- moves or the project is deleted. The key itself is never stored, so it
-- is never sent.
CREATE FUNCTION notify_api_key_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('switchboard_keys', 'k:' || OLD.key_hash);
    RETURN NULL;
END
$$;

CREATE TRIGGER api_keys_notify
AFTER UPDATE OF key_hash, project_id, expires_at, revoked_at OR DELETE ON api_keys
FOR EACH ROW EXECUTE FUNCTION notify_api_key_change();

CREATE FUNCTION notify_project_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('switchboard_keys', 'p:' || OLD.id);
    RETURN NULL;
END
$$;

CREATE TRIGGER projects_notify
AFTER UPDATE OF id, tools_version, connections_version OR DELETE ON projects
FOR EACH ROW EXECUTE FUNCTION notify_project_change();
