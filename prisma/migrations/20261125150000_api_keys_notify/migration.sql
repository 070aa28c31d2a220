-- API key cache invalidation: every app process that serves the API LISTENs on channel
-- linkhop_api_keys (lib/keys/cache.ts) and drops its whole key cache on any notification.
-- Delivered at commit. What authentication reads: a key's hash, owner, revocation and expiry, and
-- its workspace's state, plan and names (the names go into webhook envelopes). lastUsedAt is not
-- among them (it is written once a minute per key and changes no answer).

CREATE OR REPLACE FUNCTION linkhop_notify_api_keys() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('linkhop_api_keys', TG_TABLE_NAME);
  RETURN NULL;
END $$;

CREATE TRIGGER "ApiKey_notify_keys"
  AFTER INSERT OR DELETE OR TRUNCATE OR UPDATE OF "hash", "workspaceId", "revokedAt", "expiresAt" ON "ApiKey"
  FOR EACH STATEMENT EXECUTE FUNCTION linkhop_notify_api_keys();

CREATE TRIGGER "Workspace_notify_keys"
  AFTER DELETE OR TRUNCATE OR UPDATE OF "active", "plan", "slug", "name" ON "Workspace"
  FOR EACH STATEMENT EXECUTE FUNCTION linkhop_notify_api_keys();
