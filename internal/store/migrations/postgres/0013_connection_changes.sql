-- Account resolution is cached per user, not per project. Every change
-- resolution could see still bumps projects.connections_version (read with
-- the API key, so a replica notices a change on its next request), and now
-- also records which user it touched in connection_changes under that
-- version; a replica that sees the version move reads the new rows once
-- and drops only those users' cached answers (all of the project's for a
-- global account, which every user can resolve to).
CREATE TABLE connection_changes (
    project_id TEXT NOT NULL,
    version    BIGINT NOT NULL,
    user_id    TEXT NOT NULL,
    global     BOOLEAN NOT NULL,
    PRIMARY KEY (project_id, version)
);

-- The log keeps the last 1024 changes of a project; a replica further
-- behind than that drops the project's whole cache.
CREATE FUNCTION log_connection_change(p TEXT, u TEXT, g BOOLEAN) RETURNS void LANGUAGE plpgsql AS $$
DECLARE v BIGINT;
BEGIN
    UPDATE projects SET connections_version = connections_version + 1 WHERE id = p RETURNING connections_version INTO v;
    IF FOUND THEN
        INSERT INTO connection_changes (project_id, version, user_id, global) VALUES (p, v, u, g);
        DELETE FROM connection_changes WHERE project_id = p AND version <= v - 1024;
    END IF;
END
$$;

CREATE OR REPLACE FUNCTION bump_connections_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        PERFORM log_connection_change(OLD.project_id, OLD.user_id, OLD.global);
    ELSIF TG_OP = 'INSERT' THEN
        PERFORM log_connection_change(NEW.project_id, NEW.user_id, NEW.global);
    ELSE
        IF OLD.project_id <> NEW.project_id THEN
            PERFORM log_connection_change(OLD.project_id, OLD.user_id, true);
        END IF;
        PERFORM log_connection_change(NEW.project_id, NEW.user_id,
            NEW.global OR OLD.global OR OLD.user_id <> NEW.user_id);
    END IF;
    RETURN NULL;
END
$$;

-- A token refresh rewrites only the sealed credential (and updated_at):
-- nothing resolution decides on. A rotation also moves the revision, which
-- is watched, so the credential column itself no longer is.
DROP TRIGGER connections_version ON connections;
CREATE TRIGGER connections_version
AFTER INSERT OR DELETE OR UPDATE OF project_id, connector_id, auth_config_id, user_id, global, name, label, is_default, status, scopes, revision
ON connections
FOR EACH ROW EXECUTE FUNCTION bump_connections_version();

-- Global accounts of a connector, for the second half of the resolution
-- lookup (a user's own accounts use the unique index).
CREATE INDEX connections_global_idx ON connections (project_id, connector_id, created_at) WHERE global;
