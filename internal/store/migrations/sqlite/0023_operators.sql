-- Dashboard operators (docs/dashboard.md). An operator signs in with an
-- email and a password (argon2id, encoded with its parameters and salt) and
-- belongs to projects as owner or member. A dashboard session is stored by
-- the SHA-256 of its cookie token, with its expiry, so sign-out and expiry
-- hold on every replica. A sign-in link is stored the same way and used once.
CREATE TABLE operators (
    id            TEXT PRIMARY KEY,
    email         TEXT NOT NULL UNIQUE,
    password_hash TEXT NOT NULL DEFAULT '',
    created_at    BIGINT NOT NULL
);

CREATE TABLE operator_projects (
    operator_id TEXT NOT NULL REFERENCES operators (id) ON DELETE CASCADE,
    project_id  TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    role        TEXT NOT NULL,
    created_at  BIGINT NOT NULL,
    PRIMARY KEY (operator_id, project_id)
);

CREATE INDEX operator_projects_project_idx ON operator_projects (project_id);

CREATE TABLE dashboard_sessions (
    token_hash  TEXT PRIMARY KEY,
    operator_id TEXT NOT NULL REFERENCES operators (id) ON DELETE CASCADE,
    created_at  BIGINT NOT NULL,
    expires_at  BIGINT NOT NULL
);

CREATE INDEX dashboard_sessions_operator_idx ON dashboard_sessions (operator_id);
CREATE INDEX dashboard_sessions_expires_idx ON dashboard_sessions (expires_at);

CREATE TABLE operator_signin_links (
    token_hash  TEXT PRIMARY KEY,
    operator_id TEXT NOT NULL REFERENCES operators (id) ON DELETE CASCADE,
    created_at  BIGINT NOT NULL,
    expires_at  BIGINT NOT NULL
);

-- Failed sign-ins, counted per subject ("addr:<ip>" or "email:<address>")
-- over a window, in the database so that every replica sees them.
CREATE TABLE signin_failures (
    subject TEXT NOT NULL,
    at      BIGINT NOT NULL
);

CREATE INDEX signin_failures_idx ON signin_failures (subject, at);

-- An API key's last use is its newest execution log record.
CREATE INDEX execution_log_key_idx ON execution_log (api_key_id, created_at);
