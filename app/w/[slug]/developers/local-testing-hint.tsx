// Beside a refused endpoint URL: when the refusal is about a private or local address (or http /
// another port on a local host), say how to test with a receiver on this machine or network. Only
// a hint; the server's guard (lib/net/guard.ts) decides. Its wording is matched here on purpose:
// the address refusal must not say more than it does (no address, no class).

const ADDRESS_REFUSAL = "resolves to a private or reserved address";
const SHAPE_REFUSALS = ["The URL must start with https://", "The URL must use port 443"];

function looksLocal(raw: string): boolean {
  const host = URL.parse(raw.trim())
    ?.hostname.toLowerCase()
    .replace(/^\[|\]$/g, "");
  if (!host) return false;
  if (host === "localhost" || /\.(localhost|local|internal|lan|home\.arpa)$/.test(host)) return true;
  if (host === "::1" || /^f[cd][0-9a-f]{2}:/.test(host) || host.startsWith("fe80:")) return true;
  const v4 = /^(\d{1,3})\.(\d{1,3})\.\d{1,3}\.\d{1,3}$/.exec(host);
  if (!v4) return false;
  const [a, b] = [Number(v4[1]), Number(v4[2])];
  return a === 127 || a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 169 && b === 254);
}

export function suggestsLocalTesting(url: string, error: string | undefined): boolean {
  if (!error) return false;
  return error.includes(ADDRESS_REFUSAL) || (looksLocal(url) && SHAPE_REFUSALS.some((s) => error.startsWith(s)));
}

export function LocalTestingHint({ url, error }: { url: string; error: string | undefined }) {
  if (!suggestsLocalTesting(url, error)) return null;
  return (
    <p data-testid="local-testing-hint" className="rounded-md border border-slate-200 bg-slate-50 px-3 py-2 text-xs text-slate-700">
      Testing with a receiver on your own machine or network? Whoever runs this Linkhop can start it with{" "}
      <code className="font-mono">WEBHOOK_ALLOW_PRIVATE=1</code> to allow http, any port and private addresses. Use that for development
      only, never in production.
    </p>
  );
}
