-- Account resolution is cached per user, not per project. Every change
-- resolution could see still bumps projects.connections_version (read with
-- the API key), and now also records which user it touched in
-- connection_changes under that version; the process reads the new rows
-- once when the version moves and drops only those users' cached answers
-- (all of the project's for a global account).
CREATE TABLE connection_changes (
    project_id TEXT NOT NULL,
    version    BIGINT NOT NULL,
    user_id    TEXT NOT NULL,
    global     BOOLEAN NOT NULL,
    PRIMARY KEY (project_id, version)
);

DROP TRIGGER connections_version_insert;
DROP TRIGGER connections_version_delete;
DROP TRIGGER connections_version_update;

-- Each trigger bumps the version, logs the change under it and keeps the
-- project's last 1024 changes.
CREATE TRIGGER connections_version_insert AFTER INSERT ON connections
BEGIN
    UPDATE projects SET connections_version = connections_version + 1 WHERE id = NEW.project_id;
    INSERT INTO connection_changes (project_id, version, user_id, global)
        SELECT id, connections_version, NEW.user_id, NEW.global FROM projects WHERE id = NEW.project_id;
    DELETE FROM connection_changes WHERE project_id = NEW.project_id
        AND version <= (SELECT connections_version FROM projects WHERE id = NEW.project_id) - 1024;
END;

CREATE TRIGGER connections_version_delete AFTER DELETE ON connections
BEGIN
    UPDATE projects SET connections_version = connections_version + 1 WHERE id = OLD.project_id;
    INSERT INTO connection_changes (project_id, version, user_id, global)
        SELECT id, connections_version, OLD.user_id, OLD.global FROM projects WHERE id = OLD.project_id;
    DELETE FROM connection_changes WHERE project_id = OLD.project_id
        AND version <= (SELECT connections_version FROM projects WHERE id = OLD.project_id) - 1024;
END;

-- A token refresh rewrites only the sealed credential (and updated_at):
-- nothing resolution decides on. A rotation also moves the revision, which
-- is watched, so the credential column itself no longer is.
CREATE TRIGGER connections_version_update
AFTER UPDATE OF project_id, connector_id, auth_config_id, user_id, global, name, label, is_default, status, scopes, revision
ON connections
BEGIN
    UPDATE projects SET connections_version = connections_version + 1
        WHERE id = OLD.project_id AND OLD.project_id <> NEW.project_id;
    INSERT INTO connection_changes (project_id, version, user_id, global)
        SELECT id, connections_version, OLD.user_id, 1 FROM projects
        WHERE id = OLD.project_id AND OLD.project_id <> NEW.project_id;
    UPDATE projects SET connections_version = connections_version + 1 WHERE id = NEW.project_id;
    INSERT INTO connection_changes (project_id, version, user_id, global)
        SELECT id, connections_version, NEW.user_id, NEW.global OR OLD.global OR OLD.user_id <> NEW.user_id
        FROM projects WHERE id = NEW.project_id;
    DELETE FROM connection_changes WHERE project_id = NEW.project_id
        AND version <= (SELECT connections_version FROM projects WHERE id = NEW.project_id) - 1024;
END;

CREATE INDEX connections_global_idx ON connections (project_id, connector_id, created_at) WHERE global;
