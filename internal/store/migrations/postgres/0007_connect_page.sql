-- Branding and self-management of the hosted Connect page.
ALTER TABLE project_settings ADD COLUMN connect_name TEXT NOT NULL DEFAULT '';
ALTER TABLE project_settings ADD COLUMN connect_accent TEXT NOT NULL DEFAULT '';
ALTER TABLE project_settings ADD COLUMN connect_logo TEXT NOT NULL DEFAULT '';
ALTER TABLE project_settings ADD COLUMN connect_self_manage BOOLEAN NOT NULL DEFAULT FALSE;

-- OAuth authorization states: signed by being random, stored hashed, used once.
CREATE TABLE oauth_states (
    id             TEXT PRIMARY KEY,
    state_hash     TEXT NOT NULL UNIQUE,
    link_id        TEXT NOT NULL REFERENCES connect_links (id) ON DELETE CASCADE,
    auth_config_id TEXT NOT NULL REFERENCES auth_configs (id) ON DELETE CASCADE,
    connection_id  TEXT NOT NULL DEFAULT '',
    name           TEXT NOT NULL DEFAULT '',
    verifier       BYTEA,
    expires_at     BIGINT NOT NULL,
    used_at        BIGINT,
    created_at     BIGINT NOT NULL
);

-- Project uploads, content-addressed: projects/<project>/<sha256>.<ext>.
CREATE TABLE assets (
    asset_key    TEXT PRIMARY KEY,
    project_id   TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    content_type TEXT NOT NULL,
    data         BYTEA NOT NULL,
    created_at   BIGINT NOT NULL
);
