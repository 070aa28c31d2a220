import { z } from "zod";
import { isHttpUrl } from "./url-input.ts";

// The smallest field shapes of link bodies, shared by schemas.ts and routing-schema.ts (kept apart
// so that neither file imports the other).

export const MAX_URL_LENGTH = 2048;

/** Text PostgreSQL can store: no NUL characters. Every string of a request starts here. */
export const text = () => z.string().refine((v) => !v.includes("\u0000"), "must not contain NUL characters");

/** An absolute http(s) URL. Which hosts may be destinations is a service rule (rules.ts). */
export const httpUrl = text()
  .trim()
  .min(1, "must be a URL")
  .max(MAX_URL_LENGTH, `must be at most ${MAX_URL_LENGTH} characters`)
  .refine(isHttpUrl, "must be an absolute http or https URL")
  .meta({ format: "uri", example: "https://example.com/landing" });
