-- Nothing to do on SQLite: PostgreSQL's 0016 adds the triggers that tell
-- replicas' caches of session and endpoint changes, and a SQLite process
-- reads sessions and endpoints on every request instead of caching them
-- (docs/design-notes.md, "API key lookups"). The version is kept so both
-- dialects number their migrations alike.
SELECT 1;
