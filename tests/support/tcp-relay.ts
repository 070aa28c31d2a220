import net from "node:net";

export type TcpRelay = {
  /** `target` with its host and port replaced by the relay's */
  url: string;
  /** every connection reset, new ones refused (a PostgreSQL outage, as its clients see it) */
  cut(): void;
  restore(): void;
  close(): Promise<void>;
};

/** A TCP relay on loopback to the host and port of `target` (e.g. a PostgreSQL URL) that can be cut and restored. */
export async function tcpRelay(target: URL): Promise<TcpRelay> {
  const sockets = new Set<net.Socket>();
  let up = true;
  const server = net.createServer((client) => {
    if (!up) return client.destroy();
    const upstream = net.connect(Number(target.port), target.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on("close", () => sockets.delete(s));
      s.on("error", () => {});
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = new URL(target);
  url.hostname = "127.0.0.1";
  url.port = String((server.address() as net.AddressInfo).port);
  return {
    url: url.toString(),
    cut() {
      up = false;
      for (const s of sockets) s.destroy();
    },
    restore() {
      up = true;
    },
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}
