import type pg from "pg";
import type { BotMode } from "../model.ts";
import type { Queryable } from "../../db/queryable.ts";

// What every statement builder of the store uses: something to send a statement to, numbered
// parameters (values always travel as parameters; only fixed SQL from the store's tables is
// concatenated), and the bot mode as a condition.

export class Params {
  readonly values: unknown[] = [];
  add(v: unknown): string {
    this.values.push(v);
    return `$${this.values.length}`;
  }
}

/** The bot mode as a condition on the rows' bot column ('' for include). */
export const botSql = (bots: BotMode, column = "bot") =>
  bots === "exclude" ? `and not ${column}` : bots === "only" ? `and ${column}` : "";
