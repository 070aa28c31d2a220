// package.json "overrides" puts this in place of @prisma/streams-local, a dependency of the Prisma
// CLI's `prisma dev` that asks for Node 22 (npm warned EBADENGINE on every install). Linkhop never
// runs `prisma dev` (it has its own embedded PostgreSQL, lib/db/embedded.ts); if something does, it says so.
throw new Error("@prisma/streams-local is replaced in Linkhop (package.json overrides): `prisma dev` is not used here.");
