-- Bumped with every tool switch, and read with the API key, so replicas can
-- cache a project's switches and still see a change on the next request.
ALTER TABLE projects ADD COLUMN tools_version BIGINT NOT NULL DEFAULT 0;
