-- A project's own connectors: its MCP servers and imported REST APIs, as
-- connector definitions in the catalog's JSON form. An MCP server's static
-- headers are sealed. Changing one bumps the project's catalog version
-- (tools_version), which API-key lookups read.
CREATE TABLE project_connectors (
    project_id   TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    connector_id TEXT NOT NULL,
    origin       TEXT NOT NULL,
    source       TEXT NOT NULL DEFAULT '',
    definition   TEXT NOT NULL,
    headers      BLOB,
    updated_at   BIGINT NOT NULL,
    PRIMARY KEY (project_id, connector_id)
);
