// Which Chromium the browser tests drive: CHROMIUM_PATH when set, else `chromium` (or
// `chromium-browser`) found on PATH, else null. One rule for playwright.config.ts and
// scripts/test.mjs; .ci/run applies the same one in shell. Types: chromium.d.mts.
import fs from "node:fs";
import path from "node:path";

function isExecutable(file) {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

export function chromiumPath(env = process.env) {
  if (env.CHROMIUM_PATH) return env.CHROMIUM_PATH;
  for (const dir of (env.PATH ?? "").split(path.delimiter)) {
    if (!dir) continue;
    for (const name of ["chromium", "chromium-browser"]) {
      const file = path.join(dir, name);
      if (isExecutable(file)) return file;
    }
  }
  return null;
}
