// The generated .d.ts (pkg-web and pkg-node) type-checks the documented API:
// bindings-wasm/types-test/usage.ts compiled with tsc --noEmit (typescript from bindings-wasm's
// devDependencies).
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { root } from "./helpers.mjs";

const crate = join(root, "bindings-wasm");
const tsc = join(crate, "node_modules/typescript/bin/tsc");

test("generated TypeScript declarations type-check", () => {
  assert.ok(existsSync(join(crate, "pkg-web/yieldtok_wasm.d.ts")), "pkg-web missing: build the wasm package first");
  assert.ok(existsSync(tsc), "typescript missing: (cd bindings-wasm && npm ci)");
  try {
    execFileSync(process.execPath, [tsc, "-p", join(crate, "types-test/tsconfig.json")], { encoding: "utf8", stdio: "pipe" });
  } catch (e) {
    assert.fail(`tsc failed:\n${e.stdout}${e.stderr}`);
  }
});
