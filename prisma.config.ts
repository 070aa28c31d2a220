import { defineConfig } from "prisma/config";

// The CLI is only used in development (creating migrations, checking drift); the app applies
// migrations itself at start (lib/db/migrate.ts). DATABASE_URL is set by scripts/migrate-dev.mjs.
export default defineConfig({
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
  datasource: { url: process.env.DATABASE_URL ?? "postgresql://localhost/linkhop" },
});
