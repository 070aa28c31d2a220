import { ServiceError } from "../errors.ts";
import { db, type Tx } from "./client.ts";

/**
 * Runs `fn` in a serializable transaction, again on a serialization failure (up to 3 retries);
 * after the last one a 409 with `conflictMessage`, which says what was changed at the same time.
 */
export async function serializable<T>(fn: (tx: Tx) => Promise<T>, conflictMessage: string): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await db().$transaction(fn, { isolationLevel: "Serializable" });
    } catch (e) {
      if (!serializationFailure(e)) throw e;
      if (attempt < 3) continue;
      throw ServiceError.conflict(conflictMessage);
    }
  }
}

function serializationFailure(e: unknown): boolean {
  const err = e as { code?: string; meta?: { driverAdapterError?: { cause?: { originalCode?: string; kind?: string } } } };
  const cause = err?.meta?.driverAdapterError?.cause;
  return err?.code === "P2034" || cause?.originalCode === "40001" || cause?.kind === "TransactionWriteConflict";
}
