import type http from "node:http";

/**
 * Stops accepting connections and waits, at most `waitMs`, for the requests in flight to be
 * answered; then cuts whatever is left and returns. Keep-alive connections are closed as soon as
 * they are idle (server.close() alone would wait for their keep-alive timeout, 65 s). Upgraded
 * connections (the development server's hot reload) are not waited for beyond `waitMs`.
 */
export function closeServer(server: http.Server, waitMs: number): Promise<void> {
  return new Promise((resolve) => {
    const idle = setInterval(() => server.closeIdleConnections(), 50);
    const done = () => {
      clearInterval(idle);
      clearTimeout(cut);
      resolve();
    };
    const cut = setTimeout(() => {
      server.closeAllConnections();
      done();
    }, waitMs);
    server.close(done);
    server.closeIdleConnections();
  });
}
