import { z } from "zod";

// Row ids are PostgreSQL int4: a positive whole number up to 2^31 - 1. Anything else (a huge
// number, a string, an object such as {"gt":0}, null) is refused before it reaches the database.

export const MAX_ID = 2_147_483_647;

export function isId(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && value > 0 && value <= MAX_ID;
}

export const idSchema = z
  .number({ message: "must be an id (a positive whole number)" })
  .int("must be an id (a positive whole number)")
  .positive("must be an id (a positive whole number)")
  .max(MAX_ID, "is not an id (too large)");
