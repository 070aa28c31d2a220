import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "./generated/client.ts";

export type Db = InstanceType<typeof PrismaClient>;
export type Tx = Parameters<Parameters<Db["$transaction"]>[0]>[0];
export type DbOrTx = Db | Tx;

// One client per process. The custom server (via tsx) and Next's bundle each load this module;
// keeping the instance on globalThis makes them share one pool.
const g = globalThis as { __linkhopDb?: Db };

function createClient(): Db {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error("DATABASE_URL is not set: start through server.ts or set it");
  const adapter = new PrismaPg({ connectionString: url, max: Number(process.env.DATABASE_POOL_SIZE ?? 10) });
  return new PrismaClient({ adapter });
}

export function db(): Db {
  return (g.__linkhopDb ??= createClient());
}

export async function disconnectDb() {
  const client = g.__linkhopDb;
  g.__linkhopDb = undefined;
  await client?.$disconnect();
}

/** A unique-constraint violation (P2002), and which constraint when the driver says. */
export function uniqueViolation(e: unknown): { constraint: string } | null {
  const err = e as { code?: string; meta?: { target?: unknown; driverAdapterError?: { cause?: { constraint?: unknown } } } };
  if (err?.code !== "P2002") return null;
  const c = err.meta?.driverAdapterError?.cause?.constraint ?? err.meta?.target ?? "";
  return { constraint: typeof c === "string" ? c : JSON.stringify(c) };
}
