-- Bumped by every change to a project's connections that account resolution
-- could see (not by last-used times or refresh leases), and read with the
-- API key, so replicas can cache resolution and still see a change on the
-- next request. Triggers keep every write path honest.
ALTER TABLE projects ADD COLUMN connections_version BIGINT NOT NULL DEFAULT 0;

CREATE FUNCTION bump_connections_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        UPDATE projects SET connections_version = connections_version + 1 WHERE id = OLD.project_id;
    ELSE
        UPDATE projects SET connections_version = connections_version + 1 WHERE id = NEW.project_id;
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER connections_version
AFTER INSERT OR DELETE OR UPDATE OF project_id, connector_id, auth_config_id, user_id, global, name, label, is_default, status, scopes, credential, revision
ON connections
FOR EACH ROW EXECUTE FUNCTION bump_connections_version();
