// A destination's mark in the links list: the first letter of its host on a colour picked from the
// host, where Dub shows the site's favicon through a third-party favicon service. A self-hosted
// Linkhop sends no visitor's browser to a third party (which would learn every destination in the
// list), and the server does not fetch the destinations either; the letter and colour tell links
// to different sites apart at a glance just the same.

// Spelled out so Tailwind keeps them; each pair passes the text contrast rules.
const COLORS = [
  "bg-blue-100 text-blue-800",
  "bg-green-100 text-green-800",
  "bg-amber-100 text-amber-900",
  "bg-purple-100 text-purple-800",
  "bg-pink-100 text-pink-800",
  "bg-teal-100 text-teal-800",
  "bg-orange-100 text-orange-900",
  "bg-slate-200 text-slate-800",
];

export function hostOf(url: string): string {
  try {
    return new URL(url).hostname.replace(/^www\./, "");
  } catch {
    return "";
  }
}

export function SiteMark({ url }: { url: string }) {
  const host = hostOf(url);
  let hash = 0;
  for (const ch of host) hash = (hash * 31 + ch.charCodeAt(0)) >>> 0;
  return (
    <span
      aria-hidden
      data-site-mark={host}
      className={`inline-flex h-5 w-5 shrink-0 items-center justify-center rounded text-[11px] font-semibold uppercase ${COLORS[hash % COLORS.length]}`}
    >
      {host.charAt(0) || "?"}
    </span>
  );
}
