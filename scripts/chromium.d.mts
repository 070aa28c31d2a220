// Types for chromium.mjs (the TypeScript config does not check plain JS).
/** CHROMIUM_PATH when set, else `chromium`/`chromium-browser` on PATH, else null. */
export function chromiumPath(env?: Record<string, string | undefined>): string | null;
