// Loopback services for the browser tests (SMTP, DNS, webhook receiver). Each area adds its own.
export async function startE2eServices(_dataDir: string): Promise<void> {}
