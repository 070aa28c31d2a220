-- Redirect cache invalidation: every app process LISTENs on channel linkhop_redirects
-- (lib/redirects/notify.ts) and drops what these notifications name. Delivered at commit.
-- Click-count updates do not notify (they would flush the cache on every click), except a count
-- that goes down (a reset re-opens a link that had reached its cap).

CREATE OR REPLACE FUNCTION linkhop_notify_link() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    PERFORM pg_notify('linkhop_redirects', 'l:' || OLD."domainKey" || ':' || OLD."code");
  END IF;
  IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND (NEW."domainKey" <> OLD."domainKey" OR NEW."code" <> OLD."code")) THEN
    PERFORM pg_notify('linkhop_redirects', 'l:' || NEW."domainKey" || ':' || NEW."code");
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER "Link_notify_insert_delete" AFTER INSERT OR DELETE ON "Link"
  FOR EACH ROW EXECUTE FUNCTION linkhop_notify_link();

CREATE TRIGGER "Link_notify_update" AFTER UPDATE ON "Link"
  FOR EACH ROW
  WHEN ((to_jsonb(OLD) - 'clicks' - 'updatedAt') IS DISTINCT FROM (to_jsonb(NEW) - 'clicks' - 'updatedAt')
        OR NEW."clicks" < OLD."clicks")
  EXECUTE FUNCTION linkhop_notify_link();

CREATE OR REPLACE FUNCTION linkhop_notify_domain() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    PERFORM pg_notify('linkhop_redirects', 'd:' || OLD."host");
  END IF;
  IF TG_OP <> 'DELETE' THEN
    PERFORM pg_notify('linkhop_redirects', 'd:' || NEW."host");
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER "Domain_notify" AFTER INSERT OR UPDATE OR DELETE ON "Domain"
  FOR EACH ROW EXECUTE FUNCTION linkhop_notify_domain();

CREATE OR REPLACE FUNCTION linkhop_notify_workspace() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('linkhop_redirects', 'w:' || NEW."id");
  RETURN NULL;
END $$;

CREATE TRIGGER "Workspace_notify_active" AFTER UPDATE OF "active" ON "Workspace"
  FOR EACH ROW WHEN (OLD."active" IS DISTINCT FROM NEW."active")
  EXECUTE FUNCTION linkhop_notify_workspace();
