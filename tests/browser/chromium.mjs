// Launch Debian's headless Chromium with playwright-core (never a downloaded browser), with a
// fresh profile. Shared by the browser test and the benchmark (bindings-wasm/bench).
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, resolve, dirname } from "node:path";
import { fileURLToPath } from "node:url";

export const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
export const CHROMIUM = process.env.YIELDTOK_CHROMIUM || "/usr/bin/chromium";
export const FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export function playwright() {
  const req = createRequire(join(root, "bindings-wasm/package.json"));
  try {
    return req("playwright-core");
  } catch {
    throw new Error("playwright-core is missing: (cd bindings-wasm && npm ci)");
  }
}

/** { context, page, close } on a fresh profile. */
export async function launch({ viewport = { width: 1400, height: 1000 } } = {}) {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} not found: apt-get install chromium`);
  const { chromium } = playwright();
  const profile = mkdtempSync(join(tmpdir(), "yieldtok-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: FLAGS,
    viewport,
    deviceScaleFactor: 1,
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const close = async () => {
    await context.close().catch(() => {});
    rmSync(profile, { recursive: true, force: true });
  };
  return { context, page, close };
}
