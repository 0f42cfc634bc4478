-- The ids of the keys that sealed the stored secrets, so a start with a key
-- ring that cannot open them is refused instead of answering 503 later. A
-- row's check value is a short value sealed with that key, which tells a
-- ring holding other material under the same id; it is NULL for an id found
-- in the data while its key was not at hand.
CREATE TABLE secret_keys (
    key_id      TEXT PRIMARY KEY,
    check_value BLOB,
    created_at  BIGINT NOT NULL
);
