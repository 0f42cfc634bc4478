-- What caused a webhook delivery (docs/execution-log.md#links). An
-- approval.requested delivery names the tool call that was held: its
-- execution log record (NULL when the log is off) and its request id. A
-- trigger.fired delivery names the trigger, the event (the id in the
-- delivery's body, shared by every webhook's delivery of one firing) and
-- the provider's own id of the delivery it came in, when it sent one.
ALTER TABLE deliveries ADD COLUMN log_id TEXT;
ALTER TABLE deliveries ADD COLUMN request_id TEXT;
ALTER TABLE deliveries ADD COLUMN trigger_id TEXT;
ALTER TABLE deliveries ADD COLUMN event_id TEXT;
ALTER TABLE deliveries ADD COLUMN provider_event_id TEXT;
-- GET /v1/logs lists the deliveries a record caused.
CREATE INDEX deliveries_log_idx ON deliveries (project_id, log_id) WHERE log_id IS NOT NULL;
