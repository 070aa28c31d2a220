import { describe, expect, it } from "vitest";
import { neutraliseFormula, parseCsv, parseCsvRecords, toCsv } from "../../lib/csv/index.ts";

describe("parseCsv (RFC 4180)", () => {
  it("reads plain rows with CRLF and LF endings and a trailing newline", () => {
    expect(parseCsv("a,b\r\n1,2\n3,4\n").rows).toEqual([
      ["a", "b"],
      ["1", "2"],
      ["3", "4"],
    ]);
  });
  it("reads quoted fields with commas, doubled quotes and line breaks", () => {
    const r = parseCsv('url,title\n"https://x.test/?a=1,2","He said ""hi""\nthen left"\n');
    expect(r.error).toBeNull();
    expect(r.rows[1]).toEqual(["https://x.test/?a=1,2", 'He said "hi"\nthen left']);
  });
  it("keeps empty fields, including a quoted empty last field", () => {
    expect(parseCsv('a,,c\n,,\n1,""').rows).toEqual([
      ["a", "", "c"],
      ["", "", ""],
      ["1", ""],
    ]);
  });
  it("drops a byte order mark and skips blank lines", () => {
    expect(parseCsv("\ufeffa\n\n\nb\r\n").rows).toEqual([["a"], ["b"]]);
  });
  it("accepts lone CR line endings", () => {
    expect(parseCsv("a,b\r1,2").rows).toEqual([
      ["a", "b"],
      ["1", "2"],
    ]);
  });
  it("reports an unclosed quote and text after a closing quote with the line", () => {
    expect(parseCsv('a\n"open,\nmore').error).toMatch(/Line 3: a quoted field is not closed/);
    expect(parseCsv('a\n"x"y').error).toMatch(/Line 2: unexpected text after a closing quote/);
  });
  it("maps records by header, lower-cased and trimmed", () => {
    const r = parseCsvRecords(" URL ,Alias\nhttps://a.test,x\nhttps://b.test\n");
    expect(r.header).toEqual(["url", "alias"]);
    expect(r.records).toEqual([
      { url: "https://a.test", alias: "x" },
      { url: "https://b.test", alias: "" },
    ]);
    expect(parseCsvRecords("").error).toMatch(/empty/);
  });
});

describe("toCsv", () => {
  it("quotes only what needs quoting and round-trips", () => {
    const rows = [
      ["row", "status", "detail"],
      [1, "created", 'a "b", c'],
      [2, null, "line\nbreak"],
    ];
    const text = toCsv(rows);
    expect(text).toBe('row,status,detail\r\n1,created,"a ""b"", c"\r\n2,,"line\nbreak"\r\n');
    expect(parseCsv(text).rows).toEqual(rows.map((r) => r.map((v) => (v === null ? "" : String(v)))));
  });
  it("neutralises text cells a spreadsheet would run as a formula, and leaves numbers and other text alone", () => {
    for (const attack of ['=HYPERLINK("https://evil.test","x")', "+1+cmd|' /C calc'!A0", "-2+3", "@SUM(A1)", "\t=1+1", "\r=1+1"]) {
      expect(neutraliseFormula(attack)).toBe(`'${attack}`);
      const cell = parseCsv(toCsv([[attack]])).rows[0][0];
      expect(cell.startsWith("'"), JSON.stringify(cell)).toBe(true);
      expect(cell.slice(1)).toBe(attack);
    }
    for (const plain of ["https://example.com/a=b", "created", "", " =not first", "'quoted"]) expect(neutraliseFormula(plain)).toBe(plain);
    expect(toCsv([[-5, 3, "x"]])).toBe("-5,3,x\r\n");
  });
});

import { columnFor, toLinkBody } from "../../lib/links/csv-rows.ts";

describe("CSV import rows -> bulk create bodies", () => {
  it("recognises column names written in several ways", () => {
    expect(["URL", "max_clicks", "Max Clicks", "expires", "Fallback URL", "iOS"].map(columnFor)).toEqual([
      "url",
      "maxClicks",
      "maxClicks",
      "expiresOn",
      "fallbackUrl",
      "ios",
    ]);
    expect(columnFor("colour")).toBeNull();
  });
  it("converts every field, dropping empty cells and unknown columns", () => {
    const r = toLinkBody(
      {
        url: " https://a.test ",
        alias: "x1",
        title: "T",
        folder: "m/2026",
        active: "No",
        startsOn: "2026-01-02",
        expiresOn: "1893456000",
        maxClicks: "5",
        fallbackUrl: "https://f.test",
        password: "pw",
        ios: "https://i.test",
        geo: "us=https://u.test DE=https://d.test",
        notes: "",
        colour: "red",
      },
      3,
    );
    expect(r).toEqual({
      row: 3,
      body: {
        url: "https://a.test",
        alias: "x1",
        title: "T",
        folder: "m/2026",
        active: false,
        startsOn: Date.UTC(2026, 0, 2) / 1000,
        expiresOn: 1893456000,
        maxClicks: 5,
        fallbackUrl: "https://f.test",
        password: "pw",
        targeting: { ios: "https://i.test", geo: { US: "https://u.test", DE: "https://d.test" } },
      },
    });
  });
  it("takes times without a zone as UTC", () => {
    expect(toLinkBody({ url: "https://a.test", expires: "2026-12-31 18:00" }, 1)).toMatchObject({
      body: { expiresOn: Date.UTC(2026, 11, 31, 18) / 1000 },
    });
  });
  it("reports cells it cannot convert, per field", () => {
    const r = toLinkBody({ url: "https://a.test", active: "maybe", maxClicks: "ten", expiresOn: "soon", geo: "nowhere" }, 7);
    expect(r).toEqual({
      row: 7,
      errors: [
        'active: use true or false, not "maybe"',
        'maxClicks: "ten" is not a whole number',
        'expiresOn: "soon" is not a date (use ISO 8601 such as 2026-12-31T18:00:00Z, or unix seconds)',
        'geo: "nowhere" is not COUNTRY=URL (for example US=https://example.com)',
      ],
    });
  });
});
