// Helpers for reading the environment directly, for the tuning knobs read where they are used
// (pool sizes, flush intervals) rather than in the parsed configuration (index.ts).

/** A tuning knob from the environment: a positive number, else the default. */
export function positiveNumber(raw: string | undefined, fallback: number): number {
  const n = Number(raw);
  return raw && Number.isFinite(n) && n > 0 ? n : fallback;
}
