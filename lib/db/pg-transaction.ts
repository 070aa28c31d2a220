import type pg from "pg";

/**
 * Runs `work` in one transaction on one connection of `pool` (the raw-SQL paths: the click flush,
 * analytics partitions and rollups): begin, work, commit; on any failure rollback and rethrow. While
 * the connection is held, an error it reports between two statements (the server went away) is
 * listened for: without a listener it would be an uncaught exception; the failed statement reports
 * it. A connection that failed is closed instead of going back to the pool.
 */
export async function inPgTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  const lost = () => {};
  client.on("error", lost);
  let broken: Error | undefined;
  try {
    await client.query("begin");
    const result = await work(client);
    await client.query("commit");
    return result;
  } catch (e) {
    broken = e as Error;
    await client.query("rollback").catch(() => {});
    throw e;
  } finally {
    client.off("error", lost);
    client.release(broken);
  }
}
