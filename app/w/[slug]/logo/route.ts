import { currentUserId } from "@/lib/auth";
import { ServiceError } from "@/lib/errors";
import { authorize } from "@/lib/workspaces";
import { LOGO_HEADERS, LOGO_TOO_LARGE, MAX_LOGO_BYTES, removeWorkspaceLogo, setWorkspaceLogo, workspaceLogo } from "@/lib/workspaces/logo";

// The workspace's QR logo (lib/workspaces/logo.ts): GET serves it to members only (anyone else, and
// a workspace without a logo, gets 404); PUT (the image's bytes as the body) and DELETE are for
// owners and admins, from the Settings page. PUT and DELETE cannot be sent by another site's form,
// and a cross-site fetch of them needs a CORS preflight that this route never allows.

type Params = { params: Promise<{ slug: string }> };

const text = (status: number, message: string) =>
  new Response(`${message}\n`, { status, headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" } });

function refusal(e: unknown): Response {
  if (!(e instanceof ServiceError)) throw e;
  const status = e.code === "not_found" ? 404 : e.code === "forbidden" ? 403 : e.code === "unauthorized" ? 401 : 400;
  return text(status, e.message);
}

export async function GET(_: Request, { params }: Params) {
  const { slug } = await params;
  const userId = await currentUserId();
  if (!userId) return text(401, "Sign in first.");
  try {
    const { workspace } = await authorize({ userId }, slug, "workspace.view");
    const logo = await workspaceLogo(workspace.id);
    if (!logo) return text(404, "This workspace has no logo.");
    return new Response(Buffer.from(logo.bytes), {
      headers: { "Content-Type": logo.contentType, "Content-Length": String(logo.bytes.length), ...LOGO_HEADERS },
    });
  } catch (e) {
    return refusal(e);
  }
}

/** The body, or null once it is larger than MAX_LOGO_BYTES (it is not read further). */
async function boundedBody(req: Request): Promise<Uint8Array | null> {
  if (Number(req.headers.get("content-length") ?? 0) > MAX_LOGO_BYTES) return null;
  if (!req.body) return new Uint8Array();
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > MAX_LOGO_BYTES) {
      await reader.cancel();
      return null;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

export async function PUT(req: Request, { params }: Params) {
  const { slug } = await params;
  const userId = await currentUserId();
  if (!userId) return text(401, "Sign in first.");
  try {
    const ctx = await authorize({ userId }, slug, "workspace.manage");
    const bytes = await boundedBody(req);
    if (!bytes) return text(413, LOGO_TOO_LARGE);
    const saved = await setWorkspaceLogo(ctx, bytes);
    return Response.json(
      { contentType: saved.contentType, version: saved.updatedAt.getTime() },
      { headers: { "Cache-Control": "no-store" } },
    );
  } catch (e) {
    return refusal(e);
  }
}

export async function DELETE(_: Request, { params }: Params) {
  const { slug } = await params;
  const userId = await currentUserId();
  if (!userId) return text(401, "Sign in first.");
  try {
    await removeWorkspaceLogo(await authorize({ userId }, slug, "workspace.manage"));
    return new Response(null, { status: 204 });
  } catch (e) {
    return refusal(e);
  }
}
