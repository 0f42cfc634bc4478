-- MCP endpoints: a project's MCP servers by slug (unique across the
-- installation). spec is the JSON of the scope and policy, as for sessions.
CREATE TABLE endpoints (
    id           TEXT PRIMARY KEY,
    project_id   TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    slug         TEXT NOT NULL UNIQUE,
    mode         TEXT NOT NULL,
    require_user BOOLEAN NOT NULL,
    spec         TEXT NOT NULL,
    created_at   BIGINT NOT NULL,
    updated_at   BIGINT NOT NULL
);

CREATE INDEX endpoints_project_idx ON endpoints (project_id);
