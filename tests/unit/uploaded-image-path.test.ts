import { describe, expect, it } from "vitest";
import { isUploadedImagePath, UPLOADED_IMAGE_CSP } from "../../lib/http/security-headers.ts";

describe("uploaded images' policy", () => {
  it("applies to a workspace's logo path only", () => {
    expect(isUploadedImagePath("/w/acme/logo")).toBe(true);
    expect(isUploadedImagePath("/w/acme/logo?v=123")).toBe(true);
    expect(isUploadedImagePath("/w/acme/logos")).toBe(false);
    expect(isUploadedImagePath("/w/acme/settings")).toBe(false);
    expect(isUploadedImagePath("/w/acme/x/logo")).toBe(false);
    expect(isUploadedImagePath(undefined)).toBe(false);
  });

  it("runs no script and sandboxes the document", () => {
    expect(UPLOADED_IMAGE_CSP).toContain("default-src 'none'");
    expect(UPLOADED_IMAGE_CSP).toContain("sandbox");
    expect(UPLOADED_IMAGE_CSP).not.toContain("script-src");
  });
});
