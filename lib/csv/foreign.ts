// Export files of other link shorteners, recognised by their header row and turned into Linkhop
// import records (the columns of lib/links/csv-rows.ts). Pure and browser-safe: the import page
// shows the detected format and the mapping in its preview before anything is created.
//
// The column names are those of each service's documented link fields (Bitly: long_url, link,
// title, tags, created_at, archived, custom_bitlinks; Rebrandly: destination, slashtag, title,
// shortUrl, createdAt; Short.io: originalURL, path, title, tags, createdAt; Dub: the labels of its
// CSV export "Short link", "Destination URL", ... and its API names key, url, title, tags,
// createdAt). Headers are compared ignoring case, spaces, "_" and "-".

export type ForeignFormat = "bitly" | "rebrandly" | "shortio" | "dub";
export const FORMAT_LABELS: Record<ForeignFormat | "linkhop", string> = {
  linkhop: "Linkhop",
  bitly: "Bitly",
  rebrandly: "Rebrandly",
  shortio: "Short.io",
  dub: "Dub",
};

/** What a foreign column becomes: a Linkhop import column, or a line of the notes. */
export type Target = "url" | "alias" | "title" | "tags" | "notes" | "active" | "createdNote";

type Rule = { names: string[]; target: Target; how: string };

type FormatSpec = {
  /** every group must have one of its names in the header */
  signature: string[][];
  rules: Rule[];
};

const BACK_HALF = "back-half of the short link → alias";
const CREATED = "kept in notes (Linkhop sets its own creation time)";

const SPECS: Record<ForeignFormat, FormatSpec> = {
  bitly: {
    signature: [["longurl"], ["link", "bitlink", "custombitlinks"]],
    rules: [
      { names: ["longurl"], target: "url", how: "destination" },
      { names: ["custombitlinks"], target: "alias", how: `first custom back-half → alias` },
      { names: ["link", "bitlink"], target: "alias", how: `${BACK_HALF} (when there is no custom back-half)` },
      { names: ["title"], target: "title", how: "title" },
      { names: ["tags"], target: "tags", how: "tags" },
      { names: ["archived"], target: "active", how: "archived links are imported inactive" },
      { names: ["createdat", "created", "createddate"], target: "createdNote", how: CREATED },
    ],
  },
  rebrandly: {
    signature: [["slashtag"], ["destination"]],
    rules: [
      { names: ["destination"], target: "url", how: "destination" },
      { names: ["slashtag"], target: "alias", how: "slashtag → alias" },
      { names: ["title"], target: "title", how: "title" },
      { names: ["tags"], target: "tags", how: "tags" },
      { names: ["createdat", "created"], target: "createdNote", how: CREATED },
    ],
  },
  shortio: {
    signature: [["originalurl"], ["path", "shorturl"]],
    rules: [
      { names: ["originalurl"], target: "url", how: "destination" },
      { names: ["path", "shorturl"], target: "alias", how: "path → alias" },
      { names: ["title"], target: "title", how: "title" },
      { names: ["tags"], target: "tags", how: "tags" },
      { names: ["archived"], target: "active", how: "archived links are imported inactive" },
      { names: ["createdat", "created"], target: "createdNote", how: CREATED },
    ],
  },
  dub: {
    signature: [
      ["destinationurl", "url"],
      ["shortlink", "key"],
      ["createdat", "linkid", "clicks", "externalid"],
    ],
    rules: [
      { names: ["destinationurl", "url"], target: "url", how: "destination" },
      { names: ["key", "shortlink"], target: "alias", how: `key (or the ${BACK_HALF})` },
      { names: ["title"], target: "title", how: "title" },
      { names: ["tags"], target: "tags", how: "tags" },
      { names: ["comments", "description"], target: "notes", how: "notes" },
      { names: ["archived"], target: "active", how: "archived links are imported inactive" },
      { names: ["createdat"], target: "createdNote", how: CREATED },
    ],
  },
};

/** A header as compared: lower case without spaces, "_" and "-". */
export function headerKey(h: string): string {
  return h
    .trim()
    .toLowerCase()
    .replace(/[\s_-]+/g, "");
}

export type MappedColumn = {
  header: string;
  target: Target | null;
  how: string;
  /** rule order: the first non-empty value wins */ rank: number;
};
export type Detection = { format: ForeignFormat; label: string; columns: MappedColumn[] };

/** The foreign format whose signature the header row carries, with how each column maps; null for Linkhop's own or any other file. */
export function detectForeignFormat(header: string[]): Detection | null {
  const keys = header.map(headerKey);
  // Most specific first: Dub's "url" alone would also match others.
  for (const format of ["bitly", "rebrandly", "shortio", "dub"] as ForeignFormat[]) {
    const spec = SPECS[format];
    if (!spec.signature.every((group) => group.some((n) => keys.includes(n)))) continue;
    const used = new Set<number>();
    const byIndex = new Map<number, MappedColumn>();
    spec.rules.forEach((rule, rank) => {
      // the first name of the rule present in the header wins; later ones are ignored
      const at = rule.names.map((n) => keys.indexOf(n)).find((i) => i !== -1 && !used.has(i));
      if (at === undefined) return;
      used.add(at);
      byIndex.set(at, { header: header[at], target: rule.target, how: rule.how, rank });
    });
    const columns = header.map((h, i) => byIndex.get(i) ?? { header: h, target: null, how: "not imported", rank: Infinity });
    return { format, label: FORMAT_LABELS[format], columns };
  }
  return null;
}

/** The last path segment of a short link ("bit.ly/abc", "https://go.example/abc?x" → "abc"). */
export function backHalf(shortLink: string): string {
  const s = shortLink.trim();
  if (s === "") return "";
  const noScheme = s.replace(/^[a-z][a-z0-9+.-]*:\/\//i, "");
  const slash = noScheme.indexOf("/");
  if (slash === -1) return /[.:]/.test(noScheme) ? "" : noScheme; // a bare code, or a bare host
  const path = noScheme
    .slice(slash + 1)
    .split(/[?#]/)[0]
    .replace(/\/+$/, "");
  const last = path.split("/").pop() ?? "";
  try {
    return decodeURIComponent(last);
  } catch {
    return last;
  }
}

/** The first entry of a list cell ("a, b", "[a, b]", JSON array). */
function firstOfList(cell: string): string {
  return splitList(cell)[0] ?? "";
}

/** Tags and similar lists: JSON arrays, or names separated by commas, semicolons or pipes. */
export function splitList(cell: string): string[] {
  const v = cell.trim();
  if (v === "") return [];
  if (v.startsWith("[")) {
    try {
      const arr = JSON.parse(v);
      if (Array.isArray(arr))
        return arr.map((x) => String(typeof x === "object" && x && "name" in x ? (x as { name: unknown }).name : x).trim()).filter(Boolean);
    } catch {
      // not JSON: split as text below
    }
  }
  return v
    .replace(/^\[|\]$/g, "")
    .split(/[,;|]/)
    .map((t) => t.trim().replace(/^["']|["']$/g, ""))
    .filter(Boolean);
}

const TRUE = new Set(["true", "yes", "1", "y"]);

/**
 * One foreign record (keys as parseCsvRecords gives them: trimmed, lower-cased headers) as a Linkhop
 * import record: url, alias, title, tags ("a, b"), notes, active.
 */
export function convertForeignRecord(detection: Detection, record: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  const notes: string[] = [];
  let created = "";
  for (const col of [...detection.columns].sort((a, b) => a.rank - b.rank)) {
    if (!col.target) continue;
    const raw = record[col.header.trim().toLowerCase()] ?? "";
    const v = raw.trim();
    if (v === "") continue;
    switch (col.target) {
      case "url":
        out.url ??= v;
        break;
      case "alias": {
        if (out.alias) break;
        const key = headerKey(col.header);
        const alias =
          key === "custombitlinks"
            ? backHalf(firstOfList(v))
            : ["link", "bitlink", "shortlink", "shorturl"].includes(key)
              ? backHalf(v)
              : v;
        if (alias) out.alias = alias;
        break;
      }
      case "title":
        out.title = raw;
        break;
      case "tags":
        out.tags = splitList(v).join(", ");
        break;
      case "notes":
        notes.push(raw);
        break;
      case "active":
        out.active = TRUE.has(v.toLowerCase()) ? "false" : "true";
        break;
      case "createdNote":
        created = v;
        break;
    }
  }
  if (created) notes.push(`Created on ${detection.label}: ${created}`);
  if (notes.length) out.notes = notes.join("\n");
  return out;
}
