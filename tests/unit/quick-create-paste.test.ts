import { describe, expect, test } from "vitest";
import { urlFromPaste } from "../../lib/links/url-input.ts";

describe("urlFromPaste: which pasted text opens the quick-create dialog", () => {
  test("an http(s) address, trimmed", () => {
    expect(urlFromPaste("  https://example.com/spring?ref=mail#top \n")).toBe("https://example.com/spring?ref=mail#top");
    expect(urlFromPaste("http://localhost:8080/x")).toBe("http://localhost:8080/x");
  });

  test("a host name without a scheme is completed as the forms complete it", () => {
    expect(urlFromPaste("example.com/a/b")).toBe("https://example.com/a/b");
    expect(urlFromPaste("//cdn.example.net/x")).toBe("https://cdn.example.net/x");
  });

  test("text that is not one web address is ignored", () => {
    for (const text of [
      "",
      "   ",
      "hello",
      "spring sale",
      "see https://example.com/a for details",
      "https://example.com/a https://example.com/b",
      "ftp://example.com/file",
      "javascript:alert(1)",
      "mailto:a@example.com",
      "https://",
    ])
      expect(urlFromPaste(text), text).toBeNull();
  });

  test("very long text is not looked at", () => {
    expect(urlFromPaste(`https://example.com/${"a".repeat(2100)}`)).toBeNull();
    expect(urlFromPaste(`https://example.com/${"a".repeat(2000)}`)).not.toBeNull();
  });
});
