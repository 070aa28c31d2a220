// `npm run build`: `next build` with telemetry off (the machines are offline), then the server entry
// and the admin CLI compiled to JavaScript in dist/ (scripts/compile-server.mjs), which `npm start`
// and `npm run admin` run.
import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import { compileServer } from "./compile-server.mjs";
const require = createRequire(import.meta.url);
execFileSync(process.execPath, [require.resolve("next/dist/bin/next"), "build"], {
  stdio: "inherit",
  env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" },
});
await compileServer();
