// linkhop_password_hashes_total{lane} of a running app's /metrics (METRICS_TOKEN on the main port):
// how many password hashes it computed, per lane of lib/auth/hash-gate.ts.

export async function passwordHashes(appUrl: string, metricsToken: string): Promise<{ interactive: number; bulk: number }> {
  const text = await (await fetch(`${appUrl}/metrics`, { headers: { authorization: `Bearer ${metricsToken}` } })).text();
  const value = (lane: string) => {
    const line = text.split("\n").find((l) => l.startsWith(`linkhop_password_hashes_total{lane="${lane}"}`));
    if (!line) throw new Error(`no linkhop_password_hashes_total{lane="${lane}"} in /metrics`);
    return Number(line.split(" ").at(-1));
  };
  return { interactive: value("interactive"), bulk: value("bulk") };
}
