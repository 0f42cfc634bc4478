-- The execution log (docs/execution-log.md): one row per tool call, however
-- it arrived. Rows are written in batches by a background writer, never on
-- a call's own path, and pruned by the cleanup after the retention period.
-- There is no foreign key to projects: a batch must not fail because a
-- project was deleted while its rows waited in the queue, and a row outlives
-- nothing it points to (ids are kept as text for the reader to follow).
-- Latencies are microseconds. input and output are set only for projects
-- that store payloads, redacted and capped before they are written.
CREATE TABLE execution_log (
    id              TEXT PRIMARY KEY,
    project_id      TEXT NOT NULL,
    created_at      BIGINT NOT NULL,
    user_id         TEXT NOT NULL DEFAULT '',
    connector_id    TEXT NOT NULL DEFAULT '',
    tool            TEXT NOT NULL DEFAULT '',
    connection_id   TEXT NOT NULL DEFAULT '',
    session_id      TEXT NOT NULL DEFAULT '',
    endpoint_id     TEXT NOT NULL DEFAULT '',
    api_key_id      TEXT NOT NULL DEFAULT '',
    outcome         TEXT NOT NULL,
    provider_status INTEGER NOT NULL DEFAULT 0,
    total_us        BIGINT NOT NULL DEFAULT 0,
    provider_us     BIGINT NOT NULL DEFAULT 0,
    request_id      TEXT NOT NULL DEFAULT '',
    input           TEXT,
    output          TEXT
);

-- Newest first within a project, and per user; created_at alone for pruning.
CREATE INDEX execution_log_project_idx ON execution_log (project_id, created_at DESC, id DESC);
CREATE INDEX execution_log_user_idx ON execution_log (project_id, user_id, created_at DESC, id DESC);
CREATE INDEX execution_log_created_idx ON execution_log (created_at);

-- A project's choice to store inputs and outputs in the log, and the field
-- names it wants redacted beside the built-in ones (comma-separated).
ALTER TABLE project_settings ADD COLUMN log_payloads BOOLEAN NOT NULL DEFAULT 0;
ALTER TABLE project_settings ADD COLUMN log_redact TEXT NOT NULL DEFAULT '';
