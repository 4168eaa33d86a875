#!/usr/bin/env node
// Static server of the demo (and of the benchmark page). No dependencies.
//
//   node bindings-wasm/demo/serve.mjs [--port 8787] [--host 127.0.0.1]
//
//   /                      the demo (bindings-wasm/demo/index.html)
//   /demo/*  /bench/*      bindings-wasm/demo, bindings-wasm/bench
//   /examples/*            examples/ (the browser worker: /examples/browser/)
//   /pkg-web/*             the generated ES module package (build it first, see the README)
//   /fixtures/             JSON list of the fetched fixture tokenizers (.cache/fixtures)
//   /fixtures/<name>/tokenizer.json, tokenizer_config.json
//   /node_modules/*        bindings-wasm/node_modules (the benchmark's other tokenizers)
import { createServer } from "node:http";
import { createReadStream, existsSync, readdirSync, statSync } from "node:fs";
import { dirname, extname, join, normalize, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const crate = resolve(here, "..");
const root = resolve(crate, "..");
const fixturesDir = process.env.YIELDTOK_FIXTURES || join(root, ".cache/fixtures");
const ORDER = ["qwen3", "llama3_1", "gemma3", "deepseek_v3", "gpt4o", "gptoss", "llama2"];

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".wasm": "application/wasm",
  ".ts": "text/plain; charset=utf-8",
  ".png": "image/png",
  ".svg": "image/svg+xml",
};

const MOUNTS = [
  ["/demo/", join(crate, "demo")],
  ["/bench/", join(crate, "bench")],
  ["/examples/", join(root, "examples")],
  ["/pkg-web/", join(crate, "pkg-web")],
  ["/node_modules/", join(crate, "node_modules")],
  ["/fixtures/", fixturesDir],
];

export function listFixtures() {
  if (!existsSync(fixturesDir)) return [];
  const names = readdirSync(fixturesDir).filter((n) => existsSync(join(fixturesDir, n, "tokenizer.json")));
  return names.sort((a, b) => (ORDER.indexOf(a) + 1 || 99) - (ORDER.indexOf(b) + 1 || 99) || a.localeCompare(b)).map((name) => ({
    name,
    bytes: statSync(join(fixturesDir, name, "tokenizer.json")).size,
    config: existsSync(join(fixturesDir, name, "tokenizer_config.json")),
  }));
}

function send(res, status, body, type = "text/plain; charset=utf-8") {
  res.writeHead(status, { "content-type": type, "cache-control": "no-store" });
  res.end(body);
}

function handler(req, res) {
  let path;
  try {
    path = decodeURIComponent(new URL(req.url, "http://x").pathname);
  } catch {
    return send(res, 400, "bad request");
  }
  if (req.method !== "GET" && req.method !== "HEAD") return send(res, 405, "method not allowed");
  if (path === "/" || path === "/index.html") path = "/demo/index.html";
  if (path === "/bench" || path === "/bench/") path = "/bench/index.html";
  if (path === "/fixtures/" || path === "/fixtures") return send(res, 200, JSON.stringify(listFixtures()), TYPES[".json"]);
  if (path.endsWith("/")) path += "index.html";
  for (const [prefix, dir] of MOUNTS) {
    if (!path.startsWith(prefix)) continue;
    let file = normalize(join(dir, path.slice(prefix.length)));
    if (file !== dir && !file.startsWith(dir + sep)) return send(res, 403, "forbidden");
    // Some npm packages import "./x" meaning "./x.js" (bundler style); browsers ask for "x".
    if (prefix === "/node_modules/" && !existsSync(file) && existsSync(file + ".js")) file += ".js";
    if (!existsSync(file) || !statSync(file).isFile()) {
      const hint = prefix === "/pkg-web/" ? " (build the wasm package first: see bindings-wasm/README.md)" : "";
      return send(res, 404, `not found: ${path}${hint}`);
    }
    res.writeHead(200, {
      "content-type": TYPES[extname(file)] || "application/octet-stream",
      "content-length": statSync(file).size,
      "cache-control": "no-store",
    });
    if (req.method === "HEAD") return res.end();
    createReadStream(file).pipe(res);
    return;
  }
  send(res, 404, `not found: ${path}`);
}

/** Start the server; resolves to { server, url }. Port 0 picks a free port. */
export function startServer({ port = 8787, host = "127.0.0.1" } = {}) {
  return new Promise((resolvePromise, reject) => {
    const server = createServer(handler);
    server.on("error", reject);
    server.listen(port, host, () => {
      const addr = server.address();
      resolvePromise({ server, url: `http://${host}:${addr.port}/` });
    });
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const arg = (name, dflt) => {
    const i = process.argv.indexOf(name);
    return i >= 0 ? process.argv[i + 1] : dflt;
  };
  const port = Number(arg("--port", process.env.PORT || 8787));
  const host = arg("--host", "127.0.0.1");
  if (!existsSync(join(crate, "pkg-web/yieldtok_wasm.js"))) {
    console.error("warning: bindings-wasm/pkg-web is missing; build it first (see bindings-wasm/README.md)");
  }
  if (listFixtures().length === 0) console.error(`warning: no fixtures in ${fixturesDir}; run scripts/fetch-fixtures.sh`);
  const { url } = await startServer({ port, host });
  console.log(`yieldtok demo: ${url}   (benchmark page: ${url}bench/, browser worker example: ${url}examples/browser/)`);
}
