-- Auth configs: how a project connects accounts of one connector. Implicit
-- ones (api_key, basic, ...) need no client; OAuth ones hold the project's
-- client id and sealed client secret.
CREATE TABLE auth_configs (
    id             TEXT PRIMARY KEY,
    project_id     TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    connector_id   TEXT NOT NULL,
    config_key     TEXT NOT NULL,
    auth_method_id TEXT NOT NULL,
    auth_type      TEXT NOT NULL,
    client_id      TEXT NOT NULL DEFAULT '',
    client_secret  BLOB,
    scopes         TEXT NOT NULL DEFAULT '',
    implicit       BOOLEAN NOT NULL,
    created_at     BIGINT NOT NULL,
    UNIQUE (project_id, config_key)
);

CREATE INDEX auth_configs_connector_idx ON auth_configs (project_id, connector_id);

-- Connections (accounts): one stored, sealed credential of one end user
-- (user_id) or of the whole project (user_id '' and global true).
CREATE TABLE connections (
    id                  TEXT PRIMARY KEY,
    project_id          TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    connector_id        TEXT NOT NULL,
    auth_config_id      TEXT NOT NULL REFERENCES auth_configs (id),
    user_id             TEXT NOT NULL,
    global              BOOLEAN NOT NULL,
    name                TEXT NOT NULL,
    label               TEXT,
    is_default          BOOLEAN NOT NULL,
    status              TEXT NOT NULL,
    scopes              TEXT NOT NULL DEFAULT '',
    credential          BLOB NOT NULL,
    revision            BIGINT NOT NULL,
    refresh_lease_owner TEXT,
    refresh_lease_until BIGINT,
    last_used_at        BIGINT,
    created_at          BIGINT NOT NULL,
    updated_at          BIGINT NOT NULL,
    UNIQUE (project_id, connector_id, user_id, name)
);

CREATE INDEX connections_user_idx ON connections (project_id, user_id, created_at);
CREATE UNIQUE INDEX connections_default_idx ON connections (project_id, connector_id, user_id) WHERE is_default;

-- What a global account may run: tool ids or prefix* patterns, and the proxy.
CREATE TABLE global_permissions (
    connection_id TEXT PRIMARY KEY REFERENCES connections (id) ON DELETE CASCADE,
    tools         TEXT NOT NULL,
    proxy         BOOLEAN NOT NULL,
    updated_at    BIGINT NOT NULL
);
