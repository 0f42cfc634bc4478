// Fails when src/schema.ts is not what openapi-typescript makes of the API's
// OpenAPI description now (run `npm run generate` to refresh it).
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const pkg = join(here, "..");
const require = createRequire(import.meta.url);
const cli = join(dirname(require.resolve("openapi-typescript/package.json")), "bin", "cli.js");
const dir = mkdtempSync(join(tmpdir(), "sb-schema-"));
try {
  const out = join(dir, "schema.ts");
  execFileSync(process.execPath, [cli, join(pkg, "..", "..", "internal", "httpapi", "openapi.json"), "--empty-objects-unknown", "-o", out], { stdio: "pipe" });
  if (readFileSync(out, "utf8") !== readFileSync(join(pkg, "src", "schema.ts"), "utf8")) {
    console.error("src/schema.ts is out of date with internal/httpapi/openapi.json: run `npm run generate` in clients/typescript");
    process.exit(1);
  }
  console.log("src/schema.ts is up to date");
} finally {
  rmSync(dir, { recursive: true, force: true });
}
