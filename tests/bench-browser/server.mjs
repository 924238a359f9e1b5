// Loopback static server for the browser benchmarks: folders under URL prefixes, Range requests, optional per-response latency and a request log.
// With `staticHost` it answers as the README asks a static host to (Cache-Control by file, ETag, 304).
import http from "node:http";
import fs from "node:fs";
import path from "node:path";

const TYPES = { ".html": "text/html", ".js": "text/javascript", ".mjs": "text/javascript", ".cjs": "text/javascript",
  ".wasm": "application/wasm", ".json": "application/json", ".css": "text/css", ".svg": "image/svg+xml" };

/**
 * Serves `mounts` ({"/prefix/": "/dir"}) on 127.0.0.1 (random port). Every response is delayed by `latencyMs`
 * (held before the first byte). `log` gets one entry per request: {url, range, start, end} in ms since the server started,
 * and `at`, the wall-clock ms (Date.now()) it arrived. `staticHost` (`{ warehouse: "documented" | "no-cache" }`, see
 * `cacheControl`): Cache-Control, ETag and Last-Modified as a static host sends them, and 304 for a matching If-None-Match.
 */
export function serve(mounts, { latencyMs = 0, staticHost = false } = {}) {
  mounts = Object.fromEntries(Object.entries(mounts).map(([p, dir]) => [p, path.resolve(dir)]));
  const t0 = performance.now();
  const log = [];
  const server = http.createServer((req, res) => {
    const entry = { url: req.url, range: req.headers.range ?? null, start: performance.now() - t0, end: null, status: 0, at: Date.now() };
    log.push(entry);
    res.on("finish", () => { entry.end = performance.now() - t0; });
    setTimeout(() => answer(mounts, req, res, entry, staticHost), latencyMs);
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => {
    const url = `http://127.0.0.1:${server.address().port}`;
    resolve({ url, log, close: () => new Promise((r) => { server.closeAllConnections(); server.close(r); }) });
  }));
}

/**
 * The Cache-Control header the README ("Caching: what a static host should send") asks a static host to send for
 * `file`: Trunk's hashed assets (`name-<16 hex>.ext`) and table files named with a UUID never change under their name;
 * everything else (index.html, boot.js, the index, hints, snapshots, schemas, tags) is revalidated on every use.
 * With `warehouse: "no-cache"` every non-asset file is revalidated, as on a host that was not told about table files.
 */
export function cacheControl(file, { warehouse = "documented" } = {}) {
  const name = path.basename(file);
  const immutable = /-[0-9a-f]{16}(_bg)?\.(js|wasm|css)$/.test(name)
    || (warehouse === "documented" && UUID.test(name) && !file.split(path.sep).includes("tag"));
  return immutable ? "public, max-age=31536000, immutable" : "no-cache";
}
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

function answer(mounts, req, res, entry, staticHost) {
  const pathname = decodeURIComponent(new URL(req.url, "http://x").pathname);
  const prefix = Object.keys(mounts).filter((p) => pathname.startsWith(p)).sort((a, b) => b.length - a.length)[0];
  let file = prefix && path.join(mounts[prefix], pathname.slice(prefix.length));
  if (file && !file.startsWith(mounts[prefix])) file = null;
  if (file && fs.existsSync(file) && fs.statSync(file).isDirectory()) file = path.join(file, "index.html");
  if (!file || !fs.existsSync(file)) {
    entry.status = 404;
    res.writeHead(404, { "Content-Type": "text/plain" }).end("not found");
    return;
  }
  const { size, mtimeMs } = fs.statSync(file);
  const headers = { "Content-Type": TYPES[path.extname(file)] ?? "application/octet-stream", "Accept-Ranges": "bytes",
    "Cache-Control": "no-store" };
  if (staticHost) {
    const etag = `"${size.toString(16)}-${Math.floor(mtimeMs).toString(16)}"`;
    Object.assign(headers, { "Cache-Control": cacheControl(file, staticHost), ETag: etag, "Last-Modified": new Date(mtimeMs).toUTCString() });
    if (req.headers["if-none-match"] === etag) {
      entry.status = 304;
      res.writeHead(304, { "Cache-Control": headers["Cache-Control"], ETag: etag }).end();
      return;
    }
  }
  const m = /^bytes=(\d*)-(\d*)$/.exec(req.headers.range ?? "");
  if (m && size > 0) {
    let [a, b] = [m[1], m[2]];
    let start = a === "" ? Math.max(0, size - Number(b)) : Number(a);
    let end = a === "" || b === "" ? size - 1 : Math.min(Number(b), size - 1);
    if (start > end || start >= size) {
      entry.status = 416;
      res.writeHead(416, { "Content-Range": `bytes */${size}` }).end();
      return;
    }
    entry.status = 206;
    res.writeHead(206, { ...headers, "Content-Range": `bytes ${start}-${end}/${size}`, "Content-Length": end - start + 1 });
    if (req.method === "HEAD") return res.end();
    fs.createReadStream(file, { start, end }).pipe(res);
    return;
  }
  entry.status = 200;
  res.writeHead(200, { ...headers, "Content-Length": size });
  if (req.method === "HEAD") return res.end();
  fs.createReadStream(file).pipe(res);
}

/**
 * Sequential round trips among `entries`: each request's depth is 1 + the largest depth of the requests that had
 * ended before it started (it waited for their response); the answer is the largest depth.
 */
export function sequentialRoundTrips(entries) {
  const done = [];
  let deepest = 0;
  for (const e of [...entries].sort((a, b) => a.start - b.start)) {
    const before = done.filter((d) => d.end !== null && d.end <= e.start);
    e.depth = 1 + Math.max(0, ...before.map((d) => d.depth));
    deepest = Math.max(deepest, e.depth);
    done.push(e);
  }
  return deepest;
}
