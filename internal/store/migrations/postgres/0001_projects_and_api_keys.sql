-- Projects own everything else; every later table carries project_id and is
-- deleted with its project.
CREATE TABLE projects (
    id         TEXT PRIMARY KEY,
    name       TEXT NOT NULL,
    created_at BIGINT NOT NULL
);

-- API keys are stored as the SHA-256 of the key only; hint is what a listing
-- may show ("sb_…1a2b").
CREATE TABLE api_keys (
    id         TEXT PRIMARY KEY,
    project_id TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    name       TEXT NOT NULL,
    key_hash   TEXT NOT NULL UNIQUE,
    hint       TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    expires_at BIGINT,
    revoked_at BIGINT
);

CREATE INDEX api_keys_project_idx ON api_keys (project_id, created_at);
