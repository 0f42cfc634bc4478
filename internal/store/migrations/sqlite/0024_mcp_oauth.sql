-- OAuth sign-in on project MCP endpoints (docs/mcp-oauth.md).
--
-- An endpoint's auth is api_key (the project's API key only) or oauth
-- (API keys, and bearer tokens Switchboard issues as the endpoint's
-- authorization server). auth_config is the JSON of how the end user is
-- identified (the project's handoff URL and how its assertion is checked);
-- auth_secret is the sealed shared secret of that check, when it has one.
ALTER TABLE endpoints ADD COLUMN auth TEXT NOT NULL DEFAULT 'api_key';
ALTER TABLE endpoints ADD COLUMN auth_config TEXT NOT NULL DEFAULT '';
ALTER TABLE endpoints ADD COLUMN auth_secret BLOB;

-- Clients registered by dynamic client registration (RFC 7591): public
-- clients, identified by id, with their exact redirect URIs (a JSON array).
-- registrar_hash is the SHA-256 of the address that registered, for the
-- registration rate limit.
CREATE TABLE oauth_clients (
    id             TEXT PRIMARY KEY,
    name           TEXT NOT NULL,
    redirect_uris  TEXT NOT NULL,
    registrar_hash TEXT NOT NULL,
    created_at     BIGINT NOT NULL
);

CREATE INDEX oauth_clients_registrar_idx ON oauth_clients (registrar_hash, created_at);

-- One authorization request, from GET /oauth/authorize to its code: the
-- client's parameters, the endpoint its resource names, the hashes of the
-- handoff nonce and of the cookie of the browser that started it, the user
-- once known, and the hash of the code once approved. Tokens issued from it
-- carry its id as their family.
CREATE TABLE oauth_grants (
    id             TEXT PRIMARY KEY,
    client_id      TEXT NOT NULL REFERENCES oauth_clients (id) ON DELETE CASCADE,
    endpoint_id    TEXT NOT NULL REFERENCES endpoints (id) ON DELETE CASCADE,
    resource       TEXT NOT NULL,
    redirect_uri   TEXT NOT NULL,
    state          TEXT NOT NULL,
    scope          TEXT NOT NULL,
    code_challenge TEXT NOT NULL,
    nonce_hash     TEXT NOT NULL,
    browser_hash   TEXT NOT NULL,
    user_id        TEXT NOT NULL DEFAULT '',
    code_hash      TEXT UNIQUE,
    code_used_at   BIGINT,
    expires_at     BIGINT NOT NULL,
    created_at     BIGINT NOT NULL
);

-- Access and refresh tokens, stored as their SHA-256. An endpoint token
-- names its endpoint; a session token (POST /v1/sessions with mcpToken)
-- names its session. A refresh token is used once (used_at); presenting it
-- again revokes its family.
CREATE TABLE oauth_tokens (
    token_hash  TEXT PRIMARY KEY,
    kind        TEXT NOT NULL,
    family_id   TEXT NOT NULL,
    project_id  TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    endpoint_id TEXT NOT NULL DEFAULT '',
    session_id  TEXT NOT NULL DEFAULT '',
    client_id   TEXT NOT NULL DEFAULT '',
    user_id     TEXT NOT NULL,
    resource    TEXT NOT NULL DEFAULT '',
    expires_at  BIGINT NOT NULL,
    used_at     BIGINT,
    revoked_at  BIGINT,
    created_at  BIGINT NOT NULL
);

CREATE INDEX oauth_tokens_family_idx ON oauth_tokens (family_id);
CREATE INDEX oauth_tokens_expires_idx ON oauth_tokens (expires_at);
