import { Parser } from "htmlparser2";
import { PREVIEW_DESCRIPTION_MAX, PREVIEW_TITLE_MAX } from "./routing-schema.ts";

// A page's own preview card, as link-preview fetchers read it: the Open Graph tags (og:title,
// og:description, og:image), else the Twitter card tags, else <title> and the description meta tag.
// Only what a card shows; the image is made absolute against the page's URL and kept only when it
// is https (the preview schema's rule). Reading stops at </head> or <body>: the tags live in <head>.

export type PageCard = { title?: string; description?: string; image?: string };

const PREFERENCE: Record<keyof PageCard, string[]> = {
  title: ["og:title", "twitter:title"],
  description: ["og:description", "twitter:description", "description"],
  image: ["og:image:secure_url", "og:image", "og:image:url", "twitter:image", "twitter:image:src"],
};

const clean = (s: string, max: number) => s.replace(/\s+/g, " ").trim().slice(0, max).trim();

/** The card a page's HTML describes; `pageUrl` resolves a relative image. */
export function pageCard(html: string, pageUrl: string): PageCard {
  const meta = new Map<string, string>();
  let title = "";
  let inTitle = false;
  let done = false;
  const parser = new Parser(
    {
      onopentag(name, attrs) {
        if (done) return;
        if (name === "body") done = true;
        else if (name === "title") inTitle = true;
        else if (name === "meta") {
          const key = (attrs.property ?? attrs.name ?? "").trim().toLowerCase();
          const content = attrs.content;
          if (key && content !== undefined && !meta.has(key)) meta.set(key, content);
        }
      },
      ontext(text) {
        if (inTitle && !done) title += text;
      },
      onclosetag(name) {
        if (name === "title") inTitle = false;
        if (name === "head") done = true;
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.end(html);

  const first = (keys: string[]) => keys.map((k) => meta.get(k)?.trim()).find((v) => v);
  const card: PageCard = {};
  const t = clean(first(PREFERENCE.title) ?? title, PREVIEW_TITLE_MAX);
  if (t) card.title = t;
  const d = clean(first(PREFERENCE.description) ?? "", PREVIEW_DESCRIPTION_MAX);
  if (d) card.description = d;
  const image = first(PREFERENCE.image);
  if (image) {
    try {
      const abs = new URL(image, pageUrl);
      if (abs.protocol === "https:" && abs.href.length <= 2048) card.image = abs.href;
    } catch {
      // an image address that does not parse is left out
    }
  }
  return card;
}
