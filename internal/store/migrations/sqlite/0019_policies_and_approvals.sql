-- Per-tool policy rules and the approvals that `ask` rules hold calls for
-- (docs/policies.md); see the PostgreSQL migration of the same number. The
-- change count of 0017 now moves with policies_version too.
ALTER TABLE projects ADD COLUMN policies_version INTEGER NOT NULL DEFAULT 0;
ALTER TABLE projects ADD COLUMN policy_default TEXT NOT NULL DEFAULT 'allow';

DROP TRIGGER projects_counted_update;
CREATE TRIGGER projects_counted_update AFTER UPDATE OF id, tools_version, connections_version, policies_version ON projects
BEGIN UPDATE change_counter SET n = n + 1; END;

CREATE TABLE policies (
    id          TEXT PRIMARY KEY,
    project_id  TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    endpoint    TEXT NOT NULL DEFAULT '',
    priority    INTEGER NOT NULL,
    spec        TEXT NOT NULL,
    created_at  INTEGER NOT NULL
);

CREATE INDEX policies_project_idx ON policies (project_id, priority, created_at);

CREATE TABLE approvals (
    id           TEXT PRIMARY KEY,
    project_id   TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    tool_key     TEXT NOT NULL,
    connector_id TEXT NOT NULL,
    user_id      TEXT NOT NULL,
    input        TEXT NOT NULL,
    input_hash   TEXT NOT NULL,
    rule_id      TEXT NOT NULL DEFAULT '',
    session_id   TEXT NOT NULL DEFAULT '',
    endpoint     TEXT NOT NULL DEFAULT '',
    api_key_id   TEXT NOT NULL DEFAULT '',
    client_ok    INTEGER NOT NULL DEFAULT 0,
    status       TEXT NOT NULL,
    decided_by   TEXT NOT NULL DEFAULT '',
    decided_at   INTEGER,
    used_at      INTEGER,
    link_hash    TEXT UNIQUE,
    created_at   INTEGER NOT NULL,
    expires_at   INTEGER NOT NULL
);

CREATE INDEX approvals_project_idx ON approvals (project_id, created_at, id);
CREATE INDEX approvals_match_idx ON approvals (project_id, user_id, tool_key, input_hash);
