-- Poll triggers: where each one is in its provider's list (cursor_state, JSON
-- whose shape the cursor type decides; empty until the first poll places
-- it), when it was last polled and is next due, how many polls in a row
-- failed and why, and which process holds it (locked_by until
-- locked_until) so that no two replicas poll one trigger at once.
CREATE TABLE trigger_polls (
    trigger_id     TEXT PRIMARY KEY REFERENCES triggers (id) ON DELETE CASCADE,
    cursor_state   TEXT NOT NULL DEFAULT '',
    last_polled_at BIGINT,
    next_due_at    BIGINT NOT NULL,
    failures       INTEGER NOT NULL DEFAULT 0,
    last_error     TEXT NOT NULL DEFAULT '',
    locked_by      TEXT,
    locked_until   BIGINT
);

CREATE INDEX trigger_polls_due_idx ON trigger_polls (next_due_at);
