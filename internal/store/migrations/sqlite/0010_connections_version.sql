-- Bumped by every change to a project's connections that account resolution
-- could see (not by last-used times or refresh leases), and read with the
-- API key, so replicas can cache resolution and still see a change on the
-- next request. Triggers keep every write path honest.
ALTER TABLE projects ADD COLUMN connections_version BIGINT NOT NULL DEFAULT 0;

CREATE TRIGGER connections_version_insert AFTER INSERT ON connections
BEGIN
    UPDATE projects SET connections_version = connections_version + 1 WHERE id = NEW.project_id;
END;

CREATE TRIGGER connections_version_delete AFTER DELETE ON connections
BEGIN
    UPDATE projects SET connections_version = connections_version + 1 WHERE id = OLD.project_id;
END;

CREATE TRIGGER connections_version_update
AFTER UPDATE OF project_id, connector_id, auth_config_id, user_id, global, name, label, is_default, status, scopes, credential, revision
ON connections
BEGIN
    UPDATE projects SET connections_version = connections_version + 1 WHERE id IN (OLD.project_id, NEW.project_id);
END;
