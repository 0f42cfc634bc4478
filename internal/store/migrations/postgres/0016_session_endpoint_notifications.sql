-- Sessions and endpoints are cached in each process too, next to API keys
-- (recordcache.go), and dropped when the database says they changed. As in
-- 0014, the triggers make every writer say so on commit, whatever process
-- it runs in, on the same channel switchboard_keys: 's:' and the session id
-- when a session is updated or deleted (by hand, by the janitor's cleanup,
-- or with its project), 'e:' and the endpoint's slug (as it was) when an
-- endpoint is updated or deleted. A new row needs no notification: nothing
-- can have cached it yet.
CREATE FUNCTION notify_session_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('switchboard_keys', 's:' || OLD.id);
    RETURN NULL;
END
$$;

CREATE TRIGGER sessions_notify
AFTER UPDATE OR DELETE ON sessions
FOR EACH ROW EXECUTE FUNCTION notify_session_change();

CREATE FUNCTION notify_endpoint_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('switchboard_keys', 'e:' || OLD.slug);
    RETURN NULL;
END
$$;

CREATE TRIGGER endpoints_notify
AFTER UPDATE OR DELETE ON endpoints
FOR EACH ROW EXECUTE FUNCTION notify_endpoint_change();
