import { startApp, type RunningApp } from "./app.ts";
import { createTestDatabase, useDatabaseInProcess } from "./db.ts";
import { startSmtpServer, type SmtpServer } from "./smtp.ts";

// The setup of the account and invitation security tests: a database of their own, used in this
// process too (the tests call lib/ directly to arrange data and read results), a real SMTP server,
// and the running app sending its mail there.

export const AUTH_TEST_APP_URL = "http://app.linkhop.test";

export type AuthTestEnv = { app: RunningApp; smtp: SmtpServer; databaseUrl: string; stop: () => Promise<void> };

/**
 * Starts it all; this process's config is reset to the same SMTP_URL, APP_URL and AUTH_SECRET, so
 * modules imported after this call (dynamically) see them.
 */
export async function startAuthTestApp(): Promise<AuthTestEnv> {
  const database = await createTestDatabase();
  await useDatabaseInProcess(database.url);
  const smtp = await startSmtpServer();
  process.env.SMTP_URL = smtp.url;
  process.env.APP_URL = AUTH_TEST_APP_URL;
  process.env.AUTH_SECRET = "test-secret-test-secret-test-secret";
  (await import("../../lib/config/index.ts")).resetConfig();
  const app = await startApp(database.url, { SMTP_URL: smtp.url, APP_URL: AUTH_TEST_APP_URL });
  return {
    app,
    smtp,
    databaseUrl: database.url,
    stop: async () => {
      await app.stop();
      await smtp.stop();
      const { disconnectDb } = await import("../../lib/db/client.ts");
      await disconnectDb();
      await database.drop();
    },
  };
}
