import type { IncomingMessage } from "node:http";

// Server action arguments arrive as JSON text (the browser's encodeReply). Next decodes them with
// React's recursive reviver before any action code runs, so a deeply nested body (50,000 "[")
// overflows the stack and answers 500. server.ts reads such a body first (within Next's own 1 MB
// limit for actions), refuses one nested deeper than any real form sends, and hands the bytes it
// read to Next as the action body (Next's request meta `actionBody`, which it reads instead of the
// request stream). Multipart bodies (forms posted without JavaScript) go to Next unread.

// A server action (a POST with a Next-Action header, or a form posted to a page) whose Origin names another site is refused by
// Next (app-render/action-handler.js) with a 500 and three error lines, one with a stack, for every
// such request, anonymous or not. server.ts refuses it first, by the same rule, with a 403 and one
// warning (isCrossSiteAction).

/** Next's default size limit for server action bodies. */
export const MAX_ACTION_BODY_BYTES = 1024 * 1024;
/** Arguments nested deeper than this are refused; the app's own actions send 3 or 4 levels. */
export const MAX_ACTION_NESTING = 64;

/** Whether server.ts must read this request's body before Next sees it. */
export function isJsonServerAction(req: Pick<IncomingMessage, "method" | "headers">): boolean {
  return (
    req.method === "POST" && typeof req.headers["next-action"] === "string" && !/^multipart\//i.test(req.headers["content-type"] ?? "")
  );
}

/** The deepest nesting of arrays and objects in JSON text (brackets inside strings do not count). */
export function jsonNestingDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      depth++;
      if (depth > max) max = depth;
    } else if (c === 0x5d || c === 0x7d) depth = Math.max(0, depth - 1);
  }
  return max;
}

/** The body's bytes, or null when it is larger than MAX_ACTION_BODY_BYTES (or the client went away). */
export function readActionBody(req: IncomingMessage): Promise<Buffer | null> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_ACTION_BODY_BYTES) {
        req.removeAllListeners("data");
        req.resume();
        resolve(null);
      } else chunks.push(chunk);
    });
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", () => resolve(null));
  });
}

const NEXT_REQUEST_META = Symbol.for("NextInternalRequestMeta");

/**
 * Gives Next the body already read, as the action body it would otherwise read from the stream.
 * It must be the bytes (a Buffer, as Next stores there itself): Next 16's action handler streams it
 * with Readable.from() for a local action, but when the action lives on another page it forwards
 * `new Uint8Array(actionBody)`, which for a string is an empty (or NaN-sized) array: the forwarded
 * action got no arguments and logged a SyntaxError. An empty string would even be taken as "no
 * body handed over" and Next would wait forever on the stream already read.
 */
export function handOverActionBody(req: IncomingMessage, body: Buffer): void {
  const holder = req as unknown as Record<symbol, Record<string, unknown> | undefined>;
  holder[NEXT_REQUEST_META] = { ...holder[NEXT_REQUEST_META], actionBody: body };
}

/**
 * Whether Next takes the request for a possible server action, and so checks its Origin: a POST to
 * a page (not a route handler under /api/, whose form posts, such as an identity provider's
 * callback, are theirs to judge) with a Next-Action header, or with a form body, which is how a
 * form posts without JavaScript (its action id is a hidden field).
 */
function isPossibleServerAction(req: Pick<IncomingMessage, "method" | "headers" | "url">): boolean {
  if (req.method !== "POST" || (req.url ?? "/").startsWith("/api/")) return false;
  if (req.headers["next-action"] !== undefined) return true;
  const type = req.headers["content-type"] ?? "";
  return /^multipart\/form-data/i.test(type) || /^application\/x-www-form-urlencoded/i.test(type);
}

/** What the 403 for a cross-site server action says. */
export const CROSS_SITE_ACTION_REFUSAL = "Forbidden: a server action must come from a page of this site.\n";

/**
 * Whether this is a server action from another origin, by Next's own rule, so that every request
 * Next would refuse is refused here instead and every other one still reaches Next: an Origin, when
 * there is one, must name the host the request was sent to (X-Forwarded-Host's first entry when
 * there is one, else Host), as given. "null" (a sandboxed frame, a file) and an Origin that is not a
 * URL name no host. A request without Origin passes, as in Next: browsers send one with every
 * POST, so such a request comes from a script, which has no visitor's cookies to abuse.
 */
export function isCrossSiteAction(req: Pick<IncomingMessage, "method" | "headers" | "url">): boolean {
  if (!isPossibleServerAction(req)) return false;
  const origin = req.headers.origin;
  if (origin === undefined) return false;
  let originHost: string;
  try {
    originHost = new URL(origin).host;
  } catch {
    return true;
  }
  const forwarded = req.headers["x-forwarded-host"];
  const host = (Array.isArray(forwarded) ? forwarded[0] : forwarded?.split(",")[0]?.trim()) || req.headers.host;
  return originHost === "" || originHost !== host;
}
