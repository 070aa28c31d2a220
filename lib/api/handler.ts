import { z } from "zod";
import { ServiceError } from "../errors.ts";
import { config } from "../config/index.ts";
import type { Workspace } from "../db/generated/client.ts";
import { authenticateApiKey, findLiveApiKey, type AuthenticatedKey } from "../keys/index.ts";
import { forgetApiKeys } from "../keys/cache.ts";
import { hasFeature, planOf } from "../plans/index.ts";
import {
  consumeLiveKeyRateBudget,
  liveKeyRateDecision,
  rateLimitHeaders,
  type LiveKeyRate,
  type RateDecision,
} from "../ratelimit/index.ts";
import { DEFAULT_MAX_BODY_BYTES, parseWith, queryObject, readJsonBody } from "./request.ts";
import { withRequestLog, type ApiRequest } from "./request-log.ts";
import { recordApiRequest, recordRateLimited } from "./metrics.ts";
import { errorResponse, failureResponse, json, unauthorizedResponse } from "./respond.ts";

// The ONE wrapper of every /api/v1 route handler, in the order of docs/api.md:
//   1. authenticate the key (401, identical in every case, no rate headers)
//   2. the plan's ApiAccess (403 feature, no rate headers: the limiter has not run)
//   3. the key's rate budget (429), then every later answer carries X-RateLimit-* (unless the plan has no rate);
//      a route with countedRun reads (or writes) its answer in the same statement, used only once the count allows it
//   4. the query and the JSON body through the route's zod schemas (400); a countedRun route parses
//      them before its statement, and one that does not parse is counted on its own first, then answered
//   5. the route's service call; any ServiceError it throws (403 feature / quota, 404, 409, ...) or its success mapped to JSON
// Anything unexpected becomes 500 server_error with a logged reference. Every answer carries
// X-Request-Id and is logged in one line (request-log.ts).

export type ApiCall<B, Q> = {
  req: Request;
  workspace: Workspace;
  keyId: number;
  params: Record<string, string | string[]>;
  query: Q;
  body: B;
};
export type ApiAnswer =
  | { status: number; body: unknown }
  /** a streamed answer (CSV export): sent as it is produced, never held whole in memory */
  | { status: number; stream: ReadableStream<Uint8Array>; headers: Record<string, string> };

type Spec<BS extends z.ZodType | undefined, QS extends z.ZodType | undefined> = {
  /** zod schema of the JSON body; omitted: the route takes no body (a body sent anyway is ignored) */
  body?: BS;
  /** zod schema of the query object; omitted: no query parameters are accepted */
  query?: QS;
  /** query parameters that may be given more than once: the schema gets them as arrays */
  repeatable?: string[];
  maxBodyBytes?: number;
  run: (call: Call<BS, QS>) => Promise<ApiAnswer>;
  /**
   * On a plan with a rate: the route's answer read (or its write made) in the statement that counts
   * the request (one round trip for both; lib/ratelimit liveKeyRateCte), called with the parsed
   * query and body. Null when it cannot for this call: the request is counted on its own and `run`
   * answers. `answer` is taken only once the count allows the request; a null count (the key is no
   * longer live) is handled as the rate statement's null; "not counted" (the statement was refused
   * and rolled back, the count with it, or never ran): the request is counted on its own, and
   * `answer` answers once that count allows it. A countedRun that throws counted nothing either (its
   * statement failed): the request is counted on its own, then answered with what it threw.
   */
  countedRun?: (call: Call<BS, QS>, rate: LiveKeyRate) => Promise<CountedAnswer | null>;
};

type CountedAnswer = { rateCount: number | null | "not counted"; answer: () => ApiAnswer | Promise<ApiAnswer> };

type Call<BS, QS> = ApiCall<BS extends z.ZodType ? z.output<BS> : undefined, QS extends z.ZodType ? z.output<QS> : Record<string, never>>;

type RouteContext = { params: Promise<Record<string, string | string[]>> };

/** The bearer token of an Authorization header, or null. */
export function bearerToken(header: string | null): string | null {
  const m = /^Bearer +(\S+) *$/i.exec(header ?? "");
  return m ? m[1] : null;
}

export function apiRoute<BS extends z.ZodType | undefined = undefined, QS extends z.ZodType | undefined = undefined>(spec: Spec<BS, QS>) {
  const answerRequest = async (req: Request, ctx: RouteContext | undefined, request: ApiRequest): Promise<Response> => {
    const where = `${req.method} ${safePath(req)}`;
    let rate: RateDecision | null = null;
    try {
      const token = bearerToken(req.headers.get("authorization"));
      // The key comes from the process's key cache (lib/keys/cache.ts). On a plan with a rate, the
      // rate statement confirms it in the same round trip; when it does not (revoked, expired,
      // switched off or another plan, and the notification not here yet) the database decides.
      let auth: AuthenticatedKey | null = await authenticateApiKey(token);
      const params = ctx ? await ctx.params : {};
      // the query and the body, parsed once: after the count, or before it for a countedRun
      let parsing: Promise<Input> | undefined;
      const input = () => (parsing ??= parseInput(spec, req));
      // the answer read with the count (countedRun), when the route did so
      let counted: CountedAnswer | null = null;
      for (let attempt = 1; ; attempt++) {
        if (!auth) return unauthorizedResponse();
        request.workspaceId = auth.workspace.id;
        const plan = planOf(auth.workspace.plan);
        if (!hasFeature(plan, "ApiAccess")) return errorResponse(ServiceError.feature("ApiAccess"));
        if (plan.rateLimit === null) break;
        const live: LiveKeyRate = {
          keyId: auth.keyId,
          plan: auth.workspace.plan,
          limit: plan.rateLimit,
          windowSeconds: config().RATE_LIMIT_WINDOW_SECONDS,
        };
        const read = attempt === 1 && spec.countedRun ? await countedRead(spec, req, input, auth, params, live) : null;
        rate =
          read && read.rateCount !== "not counted"
            ? liveKeyRateDecision(read.rateCount, live.limit)
            : await consumeLiveKeyRateBudget(live.keyId, live.plan, live.limit, live.windowSeconds);
        if (rate && !rate.allowed) {
          recordRateLimited();
          return errorResponse(ServiceError.rateLimit(plan.rateLimit), rateLimitHeaders(rate));
        }
        if (rate) {
          counted = read;
          break;
        }
        // the database changed again between its two answers: refuse rather than go round
        if (attempt === 2) return unauthorizedResponse();
        forgetApiKeys();
        auth = await authenticateApiKey(token, findLiveApiKey);
      }
      const answer = counted
        ? await counted.answer()
        : await spec.run({ req, workspace: auth.workspace, keyId: auth.keyId, params, ...(await input()) } as never);
      if ("stream" in answer)
        return new Response(answer.stream, {
          status: answer.status,
          headers: { "Cache-Control": "no-store", ...answer.headers, ...rateLimitHeaders(rate) },
        });
      return json(answer.status, answer.body, rateLimitHeaders(rate));
    } catch (e) {
      return failureResponse(e, where, rateLimitHeaders(rate), request.id);
    }
  };
  return async (req: Request, ctx?: RouteContext) => {
    const started = performance.now();
    const response = await withRequestLog(req, (request) => answerRequest(req, ctx, request));
    recordApiRequest(req, response.status, started);
    return response;
  };
}

type Input = { query: unknown; body: unknown };

/** Step 4: the query, then the JSON body (none when the route takes none), through the route's schemas. */
async function parseInput(spec: Spec<z.ZodType | undefined, z.ZodType | undefined>, req: Request): Promise<Input> {
  const query = parseWith(spec.query ?? emptyQuery, queryObject(new URL(req.url), spec.repeatable), "query ");
  const body = spec.body ? await readJsonBody(req, spec.body, spec.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES) : undefined;
  return { query, body };
}

/**
 * The route's countedRun for a request whose query and body parse (one that does not is counted on
 * its own first and then answered 400, as without countedRun: the parse's refusal is kept).
 */
async function countedRead<BS extends z.ZodType | undefined, QS extends z.ZodType | undefined>(
  spec: Spec<BS, QS>,
  req: Request,
  input: () => Promise<Input>,
  auth: AuthenticatedKey,
  params: Record<string, string | string[]>,
  live: LiveKeyRate,
): Promise<CountedAnswer | null> {
  let parsed: Input;
  try {
    parsed = await input();
  } catch {
    return null;
  }
  try {
    return await spec.countedRun!({ req, workspace: auth.workspace, keyId: auth.keyId, params, ...parsed } as never, live);
  } catch (e) {
    return {
      rateCount: "not counted",
      answer: () => {
        throw e;
      },
    };
  }
}

const emptyQuery = z.strictObject({});
const anyQuery = z.record(z.string(), z.string());

function safePath(req: Request): string {
  try {
    return new URL(req.url).pathname;
  } catch {
    return "?";
  }
}

/** Answers every method a path does not support (after authentication and the limiter, like any request). */
export function unsupportedMethod(allowed: string[]) {
  return apiRoute({
    query: anyQuery,
    run: async ({ req }) => {
      throw ServiceError.validation(`${req.method} is not supported on this path; use ${allowed.join(", ")}.`);
    },
  });
}

/** Any /api/v1 path that is not an endpoint. */
export const unknownPath = apiRoute({
  query: anyQuery,
  run: async () => {
    throw ServiceError.notFound();
  },
});
