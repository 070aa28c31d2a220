import { db } from "../db/client.ts";
import { ServiceError } from "../errors.ts";
import type { WorkspaceContext } from "./access.ts";
import { assertWritable } from "./writable.ts";

// The workspace's logo, drawn in the centre of its QR codes (components/qr-designer.tsx). One image
// per workspace, at most MAX_LOGO_BYTES, in its own table (WorkspaceLogo) so that reading a
// workspace never loads it. The type is decided from the bytes, never from what the upload claims.
// An SVG may hold script: the app only ever uses the logo as an image (an <img>, or an <image> in
// the downloaded SVG), where no script runs; app/w/[slug]/logo/route.ts serves it with nosniff, and
// server.ts gives that path a CSP that runs no script and sandboxes the file when opened directly
// (UPLOADED_IMAGE_CSP in lib/http/security-headers.ts).

export const MAX_LOGO_BYTES = 256 * 1024;
export const LOGO_TYPES = ["image/png", "image/jpeg", "image/svg+xml"] as const;
export type LogoType = (typeof LOGO_TYPES)[number];

/** The headers every logo answer carries besides its Content-Type. */
export const LOGO_HEADERS = {
  "X-Content-Type-Options": "nosniff",
  "Cache-Control": "private, no-cache",
} as const;

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** What the bytes are (PNG, JPEG or SVG by their own signature), or null for anything else. */
export function logoTypeOf(bytes: Uint8Array): LogoType | null {
  if (bytes.length >= 8 && PNG_SIGNATURE.every((b, i) => bytes[i] === b)) return "image/png";
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return "image/jpeg";
  // SVG is text: an optional byte order mark, XML declaration, comments and doctype, then <svg.
  const head = new TextDecoder("utf-8", { fatal: false }).decode(bytes.subarray(0, 4096));
  const rest = head
    .replace(/^\uFEFF/, "")
    .replace(/^\s*<\?xml[^>]*\?>/, "")
    .replace(/^(\s*<!--[\s\S]*?-->|\s*<!DOCTYPE[^>[]*(\[[\s\S]*?\])?\s*>)*/i, "")
    .trimStart();
  return /^<svg[\s>]/i.test(rest) ? "image/svg+xml" : null;
}

export const LOGO_TOO_LARGE = `The logo is larger than ${MAX_LOGO_BYTES / 1024} KB; use a smaller image.`;
export const LOGO_WRONG_TYPE = "The logo must be a PNG, JPEG or SVG image.";

/** Stores (or replaces) the logo; ctx comes from authorize(..., "workspace.manage"). */
export async function setWorkspaceLogo(ctx: WorkspaceContext, bytes: Uint8Array): Promise<{ contentType: LogoType; updatedAt: Date }> {
  if (bytes.length > MAX_LOGO_BYTES) throw ServiceError.validation([{ path: "logo", message: LOGO_TOO_LARGE }]);
  if (bytes.length === 0) throw ServiceError.validation([{ path: "logo", message: "Choose an image file." }]);
  const contentType = logoTypeOf(bytes);
  if (!contentType) throw ServiceError.validation([{ path: "logo", message: LOGO_WRONG_TYPE }]);
  await assertWritable(ctx.workspace.id);
  const data = { contentType, bytes: Uint8Array.from(bytes) };
  const row = await db().workspaceLogo.upsert({
    where: { workspaceId: ctx.workspace.id },
    create: { workspaceId: ctx.workspace.id, ...data },
    update: data,
    select: { updatedAt: true },
  });
  return { contentType, updatedAt: row.updatedAt };
}

export async function removeWorkspaceLogo(ctx: WorkspaceContext): Promise<void> {
  await assertWritable(ctx.workspace.id);
  await db().workspaceLogo.deleteMany({ where: { workspaceId: ctx.workspace.id } });
}

/** The logo's bytes and type, or null. The caller has checked that the reader is a member. */
export async function workspaceLogo(workspaceId: number) {
  return db().workspaceLogo.findUnique({ where: { workspaceId }, select: { contentType: true, bytes: true, updatedAt: true } });
}

/** When the logo was last changed (a version for its URL), or null when there is none; reads no bytes. */
export async function workspaceLogoVersion(workspaceId: number): Promise<number | null> {
  const row = await db().workspaceLogo.findUnique({ where: { workspaceId }, select: { updatedAt: true } });
  return row ? row.updatedAt.getTime() : null;
}
