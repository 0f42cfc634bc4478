-- Per-tool policy rules and the approvals that `ask` rules hold calls for
-- (docs/policies.md). A project's rules are cached in every process and
-- keyed by projects.policies_version, which every change to a rule or to
-- the project's default decision moves in the same transaction; the
-- project notification of 0014 now fires on it too, so the next call on
-- any replica sees the change.
ALTER TABLE projects ADD COLUMN policies_version BIGINT NOT NULL DEFAULT 0;
ALTER TABLE projects ADD COLUMN policy_default TEXT NOT NULL DEFAULT 'allow';

DROP TRIGGER projects_notify ON projects;
CREATE TRIGGER projects_notify
AFTER UPDATE OF id, tools_version, connections_version, policies_version OR DELETE ON projects
FOR EACH ROW EXECUTE FUNCTION notify_project_change();

-- One rule: its decision and what it matches (JSON, validated by the
-- policy package), at project level (endpoint '') or on one MCP endpoint.
CREATE TABLE policies (
    id          TEXT PRIMARY KEY,
    project_id  TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    endpoint    TEXT NOT NULL DEFAULT '',
    priority    INTEGER NOT NULL,
    spec        TEXT NOT NULL,
    created_at  BIGINT NOT NULL
);

CREATE INDEX policies_project_idx ON policies (project_id, priority, created_at);

-- A call held for a human decision. input is the canonical JSON of the
-- call's input and input_hash its SHA-256, which a retry must match;
-- link_hash is the SHA-256 of the single-use approver link's token.
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
    client_ok    BOOLEAN NOT NULL DEFAULT FALSE,
    status       TEXT NOT NULL,
    decided_by   TEXT NOT NULL DEFAULT '',
    decided_at   BIGINT,
    used_at      BIGINT,
    link_hash    TEXT UNIQUE,
    created_at   BIGINT NOT NULL,
    expires_at   BIGINT NOT NULL
);

CREATE INDEX approvals_project_idx ON approvals (project_id, created_at, id);
CREATE INDEX approvals_match_idx ON approvals (project_id, user_id, tool_key, input_hash);
