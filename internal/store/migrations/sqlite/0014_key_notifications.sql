-- Nothing to do on SQLite: PostgreSQL's 0014 adds the triggers that tell
-- replicas' key caches of changes, and a SQLite process keeps reading the
-- key on every request instead of caching it (docs/design-notes.md,
-- "API key lookups"). The version is kept so both dialects number their
-- migrations alike.
SELECT 1;
