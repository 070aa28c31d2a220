import type { Instrumentation } from "next";

// Next.js calls onRequestError for a server error it caught in a page, a server action or a route
// handler (the /api/v1 wrapper catches its own: lib/api/respond.ts). The line carries the request's
// id (server.ts put it in x-request-id and answered it in X-Request-Id) and the route's file path,
// never the request's own path, which may hold a token (/reset-password/<token>, /invite/<token>).
export const onRequestError: Instrumentation.onRequestError = async (err, request, context) => {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { log } = await import("./lib/log/index.ts");
  const { REQUEST_ID_HEADER } = await import("./lib/log/request-id.ts");
  const id = request.headers[REQUEST_ID_HEADER];
  const digest = (err as { digest?: unknown })?.digest;
  log("app").error(
    {
      requestId: typeof id === "string" ? id : undefined,
      method: request.method,
      route: context.routePath,
      routeType: context.routeType,
      ...(typeof digest === "string" ? { digest } : {}),
      err,
    },
    "request failed",
  );
};
