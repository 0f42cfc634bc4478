-- Nothing to do on PostgreSQL: its processes hear of changes through the
-- notifications of 0014 and 0016. SQLite's 0017 counts the same changes in
-- a table, since SQLite has no notifications. The version is kept so both
-- dialects number their migrations alike.
SELECT 1;
