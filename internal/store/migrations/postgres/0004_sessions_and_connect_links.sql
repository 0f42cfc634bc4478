-- Per-project settings: the redirect URLs connect links may send users to.
CREATE TABLE project_settings (
    project_id    TEXT PRIMARY KEY REFERENCES projects (id) ON DELETE CASCADE,
    redirect_urls TEXT NOT NULL DEFAULT '',
    updated_at    BIGINT NOT NULL
);

-- Sessions: a scoped, policy-limited view for a model. spec is the JSON of
-- what the caller asked for; the scope is resolved from it on each read.
CREATE TABLE sessions (
    id         TEXT PRIMARY KEY,
    project_id TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    user_id    TEXT NOT NULL,
    spec       TEXT NOT NULL,
    expires_at BIGINT NOT NULL,
    created_at BIGINT NOT NULL
);

CREATE INDEX sessions_expiry_idx ON sessions (expires_at);

-- Connect links: single-use links to the hosted Connect page. Only the
-- SHA-256 of the token is stored.
CREATE TABLE connect_links (
    id           TEXT PRIMARY KEY,
    project_id   TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    user_id      TEXT NOT NULL,
    token_hash   TEXT NOT NULL UNIQUE,
    connectors   TEXT NOT NULL DEFAULT '',
    auth_configs TEXT NOT NULL DEFAULT '',
    redirect_url TEXT NOT NULL DEFAULT '',
    connection_id TEXT NOT NULL DEFAULT '',
    expires_at   BIGINT NOT NULL,
    used_at      BIGINT,
    created_at   BIGINT NOT NULL
);

CREATE INDEX connect_links_expiry_idx ON connect_links (expires_at);
