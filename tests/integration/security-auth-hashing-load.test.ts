import { afterAll, beforeAll, expect, test } from "vitest";
import { client, makeWorkspace, startApiTest, type ApiTestEnv } from "../support/api.ts";
import { signInCookie } from "../support/session.ts";
import { passwordHashes } from "../support/password-hashes.ts";

// A sign-in while bulk creates hash hundreds of link passwords, on the running app: the password
// hashes go through one gate per process (lib/auth/hash-gate.ts), where a sign-in takes the next
// free slot before any bulk hash. Measured in hashes, not seconds: while the sign-in waits and runs,
// the bulk jobs finish only the few hashes their slot has time for, never the queue ahead of it.
// Without the gate, every bulk request's hashes (4 at a time each) sat in the thread pool's one
// queue ahead of the sign-in's, and a sign-in took seconds (the audit: 8 s beside 4 bulks of 100).
const METRICS_TOKEN = "metrics-token-hashing-0123456789";
let env: ApiTestEnv;

beforeAll(async () => {
  env = await startApiTest({ env: { METRICS_TOKEN } });
});
afterAll(async () => {
  await env?.stop();
});

const hashes = () => passwordHashes(env.app.url, METRICS_TOKEN);

test("a sign-in goes before the password hashes of 4 bulk creates of 100 rows", { timeout: 240_000 }, async () => {
  const { key, user } = await makeWorkspace("team");
  const { db } = await import("../../lib/db/client.ts");
  const { hashPassword } = await import("../../lib/auth/password.ts");
  await db().user.update({ where: { id: user.id }, data: { passwordHash: await hashPassword("password1") } });
  const api = client(env.app, key!);
  const rows = (tag: string) =>
    Array.from({ length: 100 }, (_, i) => ({ url: `https://example.com/${tag}/${i}`, password: "link secret" }));
  const start = await hashes();
  const bulks = ["a", "b", "c", "d"].map((tag) => api.post("/api/v1/links/bulk", { links: rows(tag) }));
  // the bulk jobs are hashing, with most of their 400 hashes still to do
  await expect.poll(async () => (await hashes()).bulk - start.bulk, { timeout: 60_000, interval: 50 }).toBeGreaterThan(8);
  const samples: { before: number; after: number }[] = [];
  for (let i = 0; i < 3; i++) {
    const before = (await hashes()).bulk;
    await signInCookie(env.app.url, user.email, "password1");
    const after = (await hashes()).bulk;
    samples.push({ before, after });
  }
  const answers = await Promise.all(bulks);
  for (const a of answers) expect(a.status).toBe(200);
  const end = await hashes();
  expect(end.bulk - start.bulk).toBe(400);
  // every sign-in happened while the bulk jobs still had hashes left
  for (const s of samples) expect(s.after - start.bulk, JSON.stringify(samples)).toBeLessThan(400);
  // and while one ran, the bulk jobs finished only a few hashes (its wait for a slot and its own hash)
  const during = samples.map((s) => s.after - s.before);
  console.log(`bulk hashes finished during each sign-in: ${during.join(", ")}`);
  expect(Math.min(...during), JSON.stringify(samples)).toBeLessThanOrEqual(8);
});
