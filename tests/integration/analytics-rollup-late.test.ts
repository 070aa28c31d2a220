import pg from "pg";
import { afterAll, beforeAll, expect, test } from "vitest";
import { builtDays, buildRollupDay, ROLLUP_LOCK, unmarkRollupDays } from "../../lib/analytics/store/rollup-build.ts";
import { createTestDatabase } from "../support/db.ts";

// Events for a day whose rollup is being built at that moment (a flush just after midnight, a
// batch kept through an outage): the build read the day before they were written, so the day must
// end up marked for another build, whichever of the two commits first.
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let pool: pg.Pool;

beforeAll(async () => {
  database = await createTestDatabase();
  pool = new pg.Pool({ connectionString: database.url, max: 4 });
});
afterAll(async () => {
  await pool?.end();
  await database?.drop();
});

const DAY = 20_300; // a UTC day number (2025-07-31): any past day will do

test("a late mark made while the day is being built is not undone by that build's commit", async () => {
  await buildRollupDay(pool, DAY);
  expect(await builtDays(pool, DAY, DAY + 1)).toEqual(new Set([DAY]));

  // A build in progress: it holds the builders' lock and will mark the day built when it commits.
  const build = await pool.connect();
  try {
    await build.query("begin");
    await build.query("select pg_advisory_xact_lock($1)", [ROLLUP_LOCK]);
    // meanwhile late events arrive and mark the day
    let unmarked = false;
    const mark = unmarkRollupDays(pool, [DAY]).then(() => (unmarked = true));
    // the mark waits for the build (it cannot happen before the build's "done")
    const deadline = Date.now() + 10_000;
    while ((await waitingOnAdvisory()) === 0 && !unmarked && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(unmarked).toBe(false);
    expect(await waitingOnAdvisory()).toBe(1);
    await build.query(
      `insert into analytics.click_day_done (day) values (date '1970-01-01' + $1::int) on conflict (day) do update set built_at = now()`,
      [DAY],
    );
    await build.query("commit");
    await mark;
  } finally {
    build.release();
  }
  // the late mark came last: the day is built again by the next job run
  expect(await builtDays(pool, DAY, DAY + 1)).toEqual(new Set());
});

async function waitingOnAdvisory(): Promise<number> {
  const { rows } = await pool.query<{ n: number }>(
    `select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and wait_event = 'advisory'`,
  );
  return rows[0].n;
}
