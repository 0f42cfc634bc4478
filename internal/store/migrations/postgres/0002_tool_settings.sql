-- Tools a project has turned off. A built-in tool is on unless a row here
-- says otherwise; the row stays so the choice is kept when switched back.
CREATE TABLE tool_settings (
    project_id TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    tool_id    TEXT NOT NULL,
    enabled    BOOLEAN NOT NULL,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (project_id, tool_id)
);
