-- Call quotas and output redaction (docs/quotas.md, docs/redaction.md).
-- Both are cached in every process keyed by projects.tools_version, which
-- every change here moves in the same transaction (and so announces through
-- the project notification of 0014), so the next call on any replica sees it.

-- One limit: at most max_calls calls per period seconds (a fixed window of
-- 60, 3600 or 86400), over the calls the filters match. user_id '' matches
-- every user; per_user counts each user apart; connector_id '' matches
-- every connector; tool_id '' every tool, or one id, or a prefix ending in *.
CREATE TABLE quotas (
    id           TEXT PRIMARY KEY,
    project_id   TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    period       INTEGER NOT NULL,
    max_calls    BIGINT NOT NULL,
    user_id      TEXT NOT NULL DEFAULT '',
    per_user     BOOLEAN NOT NULL DEFAULT FALSE,
    connector_id TEXT NOT NULL DEFAULT '',
    tool_id      TEXT NOT NULL DEFAULT '',
    created_at   BIGINT NOT NULL
);

CREATE INDEX quotas_project_idx ON quotas (project_id, created_at);

-- The calls counted in one window of one quota (and one user, for a
-- per-user quota), and the limit the last call was counted against. Written
-- through the counting pool, one upsert per call; rows whose window ended
-- are removed by the janitor.
CREATE TABLE quota_counts (
    quota_id     TEXT NOT NULL REFERENCES quotas (id) ON DELETE CASCADE,
    subject      TEXT NOT NULL,
    period       INTEGER NOT NULL,
    window_start BIGINT NOT NULL,
    calls        BIGINT NOT NULL,
    max_calls    BIGINT NOT NULL,
    window_end   BIGINT NOT NULL,
    PRIMARY KEY (quota_id, subject, period, window_start)
);

CREATE INDEX quota_counts_end_idx ON quota_counts (window_end);

-- A project's redaction rules: which built-in detectors run, its own
-- patterns, and whether direct REST execution is redacted too (JSON,
-- validated by the redact package).
CREATE TABLE redaction_rules (
    project_id TEXT PRIMARY KEY REFERENCES projects (id) ON DELETE CASCADE,
    spec       TEXT NOT NULL,
    updated_at BIGINT NOT NULL
);
