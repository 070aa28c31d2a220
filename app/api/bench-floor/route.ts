// GET /api/bench-floor: a constant JSON answer from a route handler that does nothing else. It is
// the framework's floor that `npm run bench:api` (tests/bench/api.ts) sets every /api/v1 endpoint
// beside, in the same build and the same server process. It reads nothing and changes nothing.
export const dynamic = "force-dynamic";

export function GET(): Response {
  return Response.json({ ok: true });
}
