import { describe, expect, it } from "vitest";
import { parseCsv, parseCsvRecords, toCsv } from "../../lib/csv/index.ts";

describe("parseCsv (RFC 4180)", () => {
  it("reads plain rows with CRLF and LF endings and a trailing newline", () => {
    expect(parseCsv("a,b\r\n1,2\n3,4\n").rows).toEqual([["a", "b"], ["1", "2"], ["3", "4"]]);
  });
  it("reads quoted fields with commas, doubled quotes and line breaks", () => {
    const r = parseCsv('url,title\n"https://x.test/?a=1,2","He said ""hi""\nthen left"\n');
    expect(r.error).toBeNull();
    expect(r.rows[1]).toEqual(["https://x.test/?a=1,2", 'He said "hi"\nthen left']);
  });
  it("keeps empty fields, including a quoted empty last field", () => {
    expect(parseCsv('a,,c\n,,\n1,""').rows).toEqual([["a", "", "c"], ["", "", ""], ["1", ""]]);
  });
  it("drops a byte order mark and skips blank lines", () => {
    expect(parseCsv("\ufeffa\n\n\nb\r\n").rows).toEqual([["a"], ["b"]]);
  });
  it("accepts lone CR line endings", () => {
    expect(parseCsv("a,b\r1,2").rows).toEqual([["a", "b"], ["1", "2"]]);
  });
  it("reports an unclosed quote and text after a closing quote with the line", () => {
    expect(parseCsv('a\n"open,\nmore').error).toMatch(/Line 3: a quoted field is not closed/);
    expect(parseCsv('a\n"x"y').error).toMatch(/Line 2: unexpected text after a closing quote/);
  });
  it("maps records by header, lower-cased and trimmed", () => {
    const r = parseCsvRecords(" URL ,Alias\nhttps://a.test,x\nhttps://b.test\n");
    expect(r.header).toEqual(["url", "alias"]);
    expect(r.records).toEqual([{ url: "https://a.test", alias: "x" }, { url: "https://b.test", alias: "" }]);
    expect(parseCsvRecords("").error).toMatch(/empty/);
  });
});

describe("toCsv", () => {
  it("quotes only what needs quoting and round-trips", () => {
    const rows = [["row", "status", "detail"], [1, "created", 'a "b", c'], [2, null, "line\nbreak"]];
    const text = toCsv(rows);
    expect(text).toBe('row,status,detail\r\n1,created,"a ""b"", c"\r\n2,,"line\nbreak"\r\n');
    expect(parseCsv(text).rows).toEqual(rows.map((r) => r.map((v) => (v === null ? "" : String(v)))));
  });
});
