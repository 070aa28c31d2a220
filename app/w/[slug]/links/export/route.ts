import { currentUserId } from "@/lib/auth";
import { exportFileName, exportLinksCsv, exportLinksQuerySchema } from "@/lib/links";
import { ServiceError } from "@/lib/errors";
import { assertSecondFactor, membershipOf } from "@/lib/workspaces";

// The Links page's "Export CSV": the same streamed export as GET /api/v1/links/export, for the
// signed-in member, with the page's current filters (q, folder, tag).
export async function GET(req: Request, { params }: { params: Promise<{ slug: string }> }) {
  const { slug } = await params;
  const userId = await currentUserId();
  if (!userId) return new Response("Sign in first.", { status: 401 });
  const m = await membershipOf(userId, slug);
  if (!m) return new Response("Not found.", { status: 404 });
  try {
    await assertSecondFactor(m.workspace, userId);
  } catch (e) {
    if (e instanceof ServiceError) return new Response(e.message, { status: 403 });
    throw e;
  }
  const url = new URL(req.url);
  const input: Record<string, string | string[]> = {};
  for (const key of ["q", "folder", "domain"]) {
    const v = url.searchParams.get(key);
    if (v) input[key] = v;
  }
  const tags = url.searchParams.getAll("tag").filter(Boolean);
  if (tags.length) input.tag = tags;
  const parsed = exportLinksQuerySchema.safeParse(input);
  if (!parsed.success) return new Response(parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("\n"), { status: 400 });
  try {
    const stream = await exportLinksCsv(m.workspace, parsed.data);
    return new Response(stream, {
      headers: {
        "Content-Type": "text/csv; charset=utf-8",
        "Content-Disposition": `attachment; filename="${exportFileName(m.workspace)}"`,
        "Cache-Control": "no-store",
      },
    });
  } catch (e) {
    if (e instanceof ServiceError) return new Response(e.message, { status: 400 });
    throw e;
  }
}
