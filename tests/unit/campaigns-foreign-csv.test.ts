import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { backHalf, convertForeignRecord, detectForeignFormat, splitList } from "../../lib/csv/foreign.ts";
import { parseCsv, parseCsvRecords } from "../../lib/csv/index.ts";

const fixture = (name: string) => fs.readFileSync(path.join(import.meta.dirname, "../fixtures/import", name), "utf8");

function convert(name: string) {
  const text = fixture(name);
  const header = parseCsv(text).rows[0];
  const detection = detectForeignFormat(header);
  if (!detection) throw new Error(`${name}: not detected`);
  const { records } = parseCsvRecords(text);
  return { detection, rows: records.map((r) => convertForeignRecord(detection, r)) };
}

const mapping = (d: NonNullable<ReturnType<typeof detectForeignFormat>>) => Object.fromEntries(d.columns.map((c) => [c.header, c.target]));

describe("detectForeignFormat", () => {
  it("recognises a Bitly export and maps long_url, the back-half, title, tags, archived and created_at", () => {
    const { detection, rows } = convert("bitly.csv");
    expect(detection.format).toBe("bitly");
    expect(mapping(detection)).toEqual({
      id: null,
      link: "alias",
      long_url: "url",
      title: "title",
      created_at: "createdNote",
      archived: "active",
      tags: "tags",
      custom_bitlinks: "alias",
    });
    expect(rows).toEqual([
      {
        url: "https://example.com/trail-shoes?ref=bitly",
        alias: "3xTrAil",
        title: "Trail shoes",
        tags: "spring, shoes",
        active: "true",
        notes: "Created on Bitly: 2024-03-01T10:15:00+0000",
      },
      {
        url: "https://example.com/sale",
        alias: "summer-sale",
        title: "Sale, 50% off",
        tags: "sale",
        active: "false",
        notes: "Created on Bitly: 2024-04-12T08:00:00+0000",
      },
      { url: "https://example.org/docs#start", alias: "2nOtAg", active: "true", notes: "Created on Bitly: 2023-11-30T23:59:59+0000" },
    ]);
  });

  it("recognises a Rebrandly export: destination, slashtag, title, tags (semicolons), createdAt", () => {
    const { detection, rows } = convert("rebrandly.csv");
    expect(detection.format).toBe("rebrandly");
    expect(mapping(detection)).toMatchObject({
      destination: "url",
      slashtag: "alias",
      title: "title",
      tags: "tags",
      createdAt: "createdNote",
      shortUrl: null,
      domain: null,
      clicks: null,
    });
    expect(rows).toEqual([
      {
        url: "https://example.com/launch",
        alias: "spring-launch",
        title: "Spring launch",
        tags: "launch, spring",
        notes: "Created on Rebrandly: 2024-02-10T09:00:00.000Z",
      },
      { url: "https://example.com/pricing?plan=pro", alias: "pricing", notes: "Created on Rebrandly: 2024-05-01T12:30:00.000Z" },
    ]);
  });

  it("recognises a Short.io export: originalURL, path, title, tags, createdAt, archived", () => {
    const { detection, rows } = convert("shortio.csv");
    expect(detection.format).toBe("shortio");
    expect(mapping(detection)).toMatchObject({
      originalURL: "url",
      path: "alias",
      shortURL: null,
      title: "title",
      tags: "tags",
      createdAt: "createdNote",
      archived: "active",
    });
    expect(rows).toEqual([
      {
        url: "https://example.com/webinar",
        alias: "webinar",
        title: "Webinar sign-up",
        tags: "events, webinar",
        active: "true",
        notes: "Created on Short.io: 2024-06-03T14:00:00.000Z",
      },
      {
        url: "https://example.com/jobs",
        alias: "careers",
        title: "Careers",
        active: "true",
        notes: "Created on Short.io: 2024-06-04T08:45:00.000Z",
      },
    ]);
  });

  it("recognises a Dub export: Destination URL, the Short link's back-half, Title, Tags, Created at, Archived", () => {
    const { detection, rows } = convert("dub.csv");
    expect(detection.format).toBe("dub");
    expect(mapping(detection)).toMatchObject({
      "Short link": "alias",
      "Destination URL": "url",
      Title: "title",
      Tags: "tags",
      "Created at": "createdNote",
      Archived: "active",
      Clicks: null,
      "Link ID": null,
    });
    expect(rows).toEqual([
      {
        url: "https://example.com/newsletter?utm_source=dub",
        alias: "newsletter",
        title: "Newsletter",
        tags: "email, monthly",
        active: "true",
        notes: "Created on Dub: 2024-07-01T10:00:00.000Z",
      },
      {
        url: "https://example.com/offer",
        alias: "old-offer",
        title: "Old offer",
        active: "false",
        notes: "Created on Dub: 2024-01-15T16:20:00.000Z",
      },
    ]);
  });

  it("takes Dub's API field names too (key, url, comments)", () => {
    const d = detectForeignFormat(["key", "domain", "url", "comments", "createdAt"])!;
    expect(d.format).toBe("dub");
    expect(convertForeignRecord(d, { key: "k1", domain: "dub.sh", url: "https://e.com", comments: "hi", createdat: "2024-01-01" })).toEqual(
      {
        url: "https://e.com",
        alias: "k1",
        notes: "hi\nCreated on Dub: 2024-01-01",
      },
    );
  });

  it("leaves Linkhop's own columns and unknown files alone", () => {
    expect(detectForeignFormat(["url", "alias", "domain", "title", "notes", "folder", "tags"])).toBeNull();
    expect(detectForeignFormat(["destination", "code"])).toBeNull();
    expect(detectForeignFormat([])).toBeNull();
  });
});

describe("backHalf and splitList", () => {
  it("takes the last path segment of a short link in any spelling", () => {
    expect(backHalf("bit.ly/abc")).toBe("abc");
    expect(backHalf("https://go.example.com/abc/?x=1#y")).toBe("abc");
    expect(backHalf("abc")).toBe("abc");
    expect(backHalf("https://bit.ly")).toBe("");
    expect(backHalf("bit.ly")).toBe("");
    expect(backHalf("https://bit.ly/a%20b")).toBe("a b");
  });
  it("splits lists by commas, semicolons, pipes and JSON arrays", () => {
    expect(splitList(" a, b ;c|d ")).toEqual(["a", "b", "c", "d"]);
    expect(splitList('["x","y"]')).toEqual(["x", "y"]);
    expect(splitList('[{"name":"x"}]')).toEqual(["x"]);
    expect(splitList("")).toEqual([]);
  });
});
