-- Project webhook endpoints that receive trigger.fired deliveries.
CREATE TABLE webhooks (
    id          TEXT PRIMARY KEY,
    project_id  TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    url         TEXT NOT NULL,
    events      TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    secret      BYTEA NOT NULL,
    disabled_at BIGINT,
    created_at  BIGINT NOT NULL
);

CREATE INDEX webhooks_project_idx ON webhooks (project_id);

-- Triggers: one provider event on one connection. The ingress token is
-- stored as its SHA-256; the provider's signing secret is sealed.
CREATE TABLE triggers (
    id            TEXT PRIMARY KEY,
    project_id    TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    connection_id TEXT NOT NULL REFERENCES connections (id) ON DELETE CASCADE,
    connector_id  TEXT NOT NULL,
    event         TEXT NOT NULL,
    token_hash    TEXT NOT NULL UNIQUE,
    secret        BYTEA,
    config        TEXT NOT NULL DEFAULT '{}',
    setup         TEXT NOT NULL,
    hook_id       TEXT NOT NULL DEFAULT '',
    fire_count    BIGINT NOT NULL DEFAULT 0,
    last_fired_at BIGINT,
    created_at    BIGINT NOT NULL
);

CREATE INDEX triggers_project_idx ON triggers (project_id, created_at);

-- Ingress counts per trigger and minute, so replicas agree on the rate limit.
CREATE TABLE trigger_hits (
    trigger_id TEXT NOT NULL REFERENCES triggers (id) ON DELETE CASCADE,
    minute     BIGINT NOT NULL,
    hits       BIGINT NOT NULL,
    PRIMARY KEY (trigger_id, minute)
);

-- Signatures of timestamped deliveries already processed, to refuse replays
-- within the scheme's tolerance.
CREATE TABLE trigger_seen (
    trigger_id TEXT NOT NULL REFERENCES triggers (id) ON DELETE CASCADE,
    digest     TEXT NOT NULL,
    seen_at    BIGINT NOT NULL,
    PRIMARY KEY (trigger_id, digest)
);

-- Deliveries: both the outbound queue and its log.
CREATE TABLE deliveries (
    id              TEXT PRIMARY KEY,
    project_id      TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    webhook_id      TEXT NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
    event_type      TEXT NOT NULL,
    payload         TEXT NOT NULL,
    status          TEXT NOT NULL,
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_attempt_at BIGINT NOT NULL,
    locked_by       TEXT,
    locked_until    BIGINT,
    last_status     INTEGER,
    last_error      TEXT NOT NULL DEFAULT '',
    last_attempt_at BIGINT,
    created_at      BIGINT NOT NULL
);

CREATE INDEX deliveries_due_idx ON deliveries (status, next_attempt_at);
CREATE INDEX deliveries_webhook_idx ON deliveries (webhook_id, created_at);
