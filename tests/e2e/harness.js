// Shared pieces of the end-to-end tests: the browser, pages that record problems, grid reading.
import { createServer } from "node:net";
import { createServer as createHttpServer } from "node:http";
import { createReadStream, existsSync, mkdirSync, readFileSync, readdirSync, statSync } from "node:fs";
import { join, normalize } from "node:path";
import { before, after } from "node:test";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

export const BASE = process.env.LAKESCOPE_URL ?? "http://127.0.0.1:8080/";
export const SCREENS =
  process.env.LAKESCOPE_SCREENS ?? fileURLToPath(new URL("../../target/e2e-screens/", import.meta.url));
/** `../shared` beside the repository (the corpus and its expected rows). */
export const SHARED = process.env.LAKESCOPE_SHARED ?? fileURLToPath(new URL("../../../shared/", import.meta.url));
/** The demo lake's databases and tables (public/demo/warehouse), in the catalog's order. */
export const DEMO_TABLES = {
  corpus: ["append_dt", "pk_dedup", "schema_evolution", "tagged"],
  demo: ["events", "xss"],
  iceberg: ["branched", "mor_position_deletes", "partition_evolution"],
  java09: ["pk_branch", "pk_compacted", "pk_deletion_vectors"],
  shop: ["access_log", "customers", "item_sales", "orders", "user_behavior"],
};
/** `db.table` of every demo table. */
export const DEMO_TABLE_NAMES = Object.entries(DEMO_TABLES).flatMap(([db, ts]) => ts.map((t) => `${db}.${t}`));
/** Expected rows of the corpus's Paimon tables (the reference implementations' reads). */
export const EXPECTED = process.env.LAKESCOPE_EXPECTED ?? `${SHARED}corpus/expected/paimon`;

/** Expected rows (JSON objects) of a corpus Paimon table at a snapshot. */
export function expectedRows(table, snapshot) {
  return readFileSync(`${EXPECTED}/${table}/snapshot-${snapshot}.jsonl`, "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l));
}

/** Expected rows of a corpus Paimon table at a snapshot as grid lines (`a|b|c` in schema order,
 * NULL as the grid shows it), sorted: compare with `gridRows(...).map(normaliseLine).sort()`. */
export function expectedLines(table, snapshot) {
  const schema = JSON.parse(readFileSync(`${EXPECTED}/${table}/snapshot-${snapshot}.schema.json`, "utf8"));
  const names = schema.paimon_schema.fields.map((f) => f.name);
  return expectedRows(table, snapshot)
    .map((r) => names.map((n) => (r[n] === null ? "NULL" : String(r[n]))).join("|"))
    .sort();
}

/** The last snapshot id in the corpus's description of a Paimon table (its demo copy's latest). */
export function expectedLatest(table) {
  return JSON.parse(readFileSync(`${EXPECTED}/${table}/table.json`, "utf8")).snapshots.at(-1).id;
}

/** The reference readers' rows of the Iceberg tables (pyiceberg, checked against DuckDB). */
export const EXPECTED_ICEBERG = process.env.LAKESCOPE_EXPECTED_ICEBERG ?? `${SHARED}corpus/expected/iceberg`;
const ICEBERG_LAKE = new URL("../../public/demo/warehouse/iceberg/", import.meta.url);

/** The newest metadata JSON of a demo Iceberg table (snapshot ids, beyond 2^53, as strings). */
export function icebergMetadata(table) {
  const dir = new URL(`${table}/metadata/`, ICEBERG_LAKE);
  const newest = readdirSync(dir)
    .filter((f) => f.endsWith(".metadata.json"))
    .sort()
    .at(-1);
  const text = readFileSync(new URL(newest, dir), "utf8").replace(/("[a-z-]*snapshot-id"\s*:\s*)(-?\d+)/g, '$1"$2"');
  return JSON.parse(text);
}

/** Expected rows of an Iceberg table at a snapshot as grid lines (`col|col|...` in schema order), sorted. */
export function expectedIcebergLines(table, snapshot) {
  const schema = JSON.parse(readFileSync(`${EXPECTED_ICEBERG}/${table}/snapshot-${snapshot}.schema.json`, "utf8"));
  const names = schema.iceberg_schema.fields.map((f) => f.name);
  return readFileSync(`${EXPECTED_ICEBERG}/${table}/snapshot-${snapshot}.jsonl`, "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l))
    .map((r) => names.map((n) => (r[n] === null ? "null" : String(r[n]))).join("|"))
    .sort();
}

/** `2024-02-02 01:00:00` / `…T01:00:00.000` → the references' `2024-02-02T01:00:00.000000`. */
export function normaliseCell(cell) {
  const m = /^(\d{4}-\d\d-\d\d)[ T](\d\d:\d\d:\d\d)(?:\.(\d+))?$/.exec(cell);
  return m ? `${m[1]}T${m[2]}.${(m[3] ?? "").padEnd(6, "0")}` : cell;
}
export const normaliseLine = (line) => line.split("|").map(normaliseCell).join("|");

/** The rows of `after` whose key is in `before` with other values (a diff's `~changed`). */
export function changedRows(before, after, key) {
  const old = new Map(before.map((r) => [key(r), JSON.stringify(r)]));
  return after.filter((r) => old.has(key(r)) && old.get(key(r)) !== JSON.stringify(r));
}

/** The native CLI (built by the native tests; test.sh passes its path in LAKESCOPE_BIN). */
export const CLI =
  process.env.LAKESCOPE_BIN ?? process.env.LAKESCOPE_CLI ?? fileURLToPath(new URL("../../target/debug/lakescope", import.meta.url));

/** A free TCP port on 127.0.0.1 (for a server a test starts). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/** Whether the app at BASE has the SQL engine (a host may answer a missing file with its page). */
export const HAS_ENGINE = await fetch(new URL("lakescope-sql-worker_loader.js", BASE))
  .then((r) => r.ok && !/text\/html/.test(r.headers.get("content-type") ?? ""))
  .catch(() => false);
/** Test options of a test that needs the SQL engine: skipped, saying so, without it. */
export const NEEDS_ENGINE = HAS_ENGINE ? {} : { skip: "dist/ has no SQL engine (bash scripts/build-sql-worker.sh dist)" };

/** Headless Chromium with the flags this machine needs (fresh temporary profile each time). */
export function launchBrowser() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

/** One headless Chromium for a test file's tests: launched before them (with the screenshot
 * folder made), closed after them. The handle opens pages in it (`browser` for own contexts).
 * `base` (a URL, or a function giving it once the tests run) replaces LAKESCOPE_URL. */
export function testBrowser({ base } = {}) {
  const at = () => (typeof base === "function" ? base() : base);
  const handle = {
    browser: undefined,
    openPage: (path, options) => openPageIn(handle.browser, path, { base: at(), ...options }),
    openTable: (table, params, options) => openTableIn(handle.browser, table, params, { base: at(), ...options }),
  };
  before(async () => {
    mkdirSync(SCREENS, { recursive: true });
    handle.browser = await launchBrowser();
  });
  after(async () => {
    await handle.browser?.close();
  });
  return handle;
}

/** The app's error messages (a panel, an inline error, a failed catalog or Data tab): a view that
 * waits for its result waits for these too, and fails with their text. */
export const SHOWN_ERRORS =
  '[data-testid="error-panel"], [data-testid="data-error"], [data-testid="catalog-error"], [data-testid="sql-failure"], .err-inline';

export const shot = (page, name) => page.screenshot({ path: `${SCREENS}/${name}.png` });

/** A fresh page that records console errors, page errors and CSP violations; `beforeGoto(page)`
 * runs before the app loads (e.g. to install request routes); `base`: the app's URL. */
export async function openPageIn(browser, path = "", { beforeGoto, base = BASE } = {}) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 760 } });
  const page = await context.newPage();
  const problems = [];
  page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
  page.on("console", (m) => {
    // The browser logs every 404 without its URL; the responses below say which ones they were.
    if (m.type() === "error" && !/status of 404/.test(m.text())) problems.push(`console: ${m.text()}`);
  });
  page.on("response", (r) => {
    // Reading a Paimon table probes snapshot-(LATEST+1) to check the LATEST hint, as Java does:
    // that 404 is expected. Any other missing file is a problem.
    if (r.status() === 404 && !/\/snapshot\/snapshot-\d+$/.test(r.url())) problems.push(`404: ${r.url()}`);
  });
  await page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (e) => {
      console.error(`CSP violation: ${e.violatedDirective} ${e.blockedURI}`);
    });
  });
  await beforeGoto?.(page);
  await page.goto(new URL(path, base ?? BASE).href);
  return { page, problems, close: () => context.close() };
}

export async function openTableIn(browser, table, params = "", options = {}) {
  const ctx = await openPageIn(browser, `?warehouse=demo/warehouse/&table=${table}${params}`, options);
  await ctx.page.getByTestId("table-panel").waitFor({ timeout: 30_000 });
  return ctx;
}

/**
 * Every row of a grid (at most `most`), in order, as `a|b|c` lines. The grid puts only the rows
 * near its view in the page, so it is scrolled through a view at a time, then back to the top.
 */
export function gridRows(page, testid = "data-grid", { most = 5000 } = {}) {
  return page.evaluate(readGrid, { testid, most });
}

/** `gridRows` inside the page (self-contained, so that any driver can evaluate it:
 * `page.evaluate(readGrid, { testid, most })` in Playwright and Puppeteer alike). */
export async function readGrid({ testid, most }) {
  const grid = document.querySelector(`[data-testid="${testid}"]`);
  if (!grid) return [];
  const frames = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  const count = Math.round((grid.querySelector(".gcanvas")?.offsetHeight ?? 0) / 24);
  if (count > most) throw new Error(`gridRows reads grids of at most ${most} rows; ${testid} has ${count}`);
  const rows = new Map();
  for (let view = 0; ; view++) {
    grid.scrollTop = view * Math.max(24, grid.clientHeight - 30);
    // The grid draws its new rows on the scroll event, before the next frames' callbacks.
    await frames();
    const atEnd = grid.scrollTop + grid.clientHeight >= grid.scrollHeight - 1;
    for (const r of grid.querySelectorAll('[data-testid="grid-row"]')) {
      rows.set(Number(r.dataset.row), [...r.querySelectorAll(".gc")].map((c) => c.textContent).join("|"));
    }
    if (atEnd) break;
  }
  grid.scrollTop = 0;
  await frames();
  return [...rows].sort((a, b) => a[0] - b[0]).map(([, line]) => line);
}

/** A gate for requests whose URL matches `pattern`: they wait until `open()` is called. */
export async function holdRequests(page, pattern) {
  let open;
  const opened = new Promise((resolve) => (open = resolve));
  await page.route(pattern, async (route) => {
    await opened;
    await route.continue().catch(() => {});
  });
  return { open };
}

/** On a page of the app: copies the demo lake into the browser's OPFS as opfs://my-lake. */
export async function copyDemoToOpfs(page) {
  await page.getByTestId("catalog-tree").waitFor({ timeout: 60_000 });
  await page.getByTestId("opfs-button").click();
  await page.getByTestId("opfs-copy-demo").click();
  await page.getByTestId("opfs-status").filter({ hasText: /^Copied \d+ objects/ }).waitFor({ timeout: 120_000 });
  // the copy is then opened: wait until it is connected
  await page
    .getByTestId("connection-status")
    .filter({ hasText: /^opfs:\/\/my-lake\/ · \d+ databases · \d+ tables$/ })
    .waitFor({ timeout: 60_000 });
}

/** A static file server for `dir` that sends what a bucket's CORS rule would (GET/HEAD from any
 * origin, Range allowed); 404 for a missing file. */
export function serveWithCors(dir, port) {
  const srv = createHttpServer((req, res) => {
    res.setHeader("Access-Control-Allow-Origin", "*");
    res.setHeader("Access-Control-Allow-Headers", "Range");
    res.setHeader("Access-Control-Expose-Headers", "Content-Length, Content-Range");
    if (req.method === "OPTIONS") return res.writeHead(204).end();
    const path = normalize(join(dir, decodeURIComponent(new URL(req.url, "http://x").pathname)));
    if (!path.startsWith(dir) || !existsSync(path) || !statSync(path).isFile()) return res.writeHead(404).end();
    const size = statSync(path).size;
    const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? "");
    if (range) {
      const start = Number(range[1]);
      const end = Math.min(range[2] ? Number(range[2]) : size - 1, size - 1);
      res.writeHead(206, { "Content-Range": `bytes ${start}-${end}/${size}`, "Content-Length": end - start + 1 });
      return req.method === "HEAD" ? res.end() : createReadStream(path, { start, end }).pipe(res);
    }
    res.writeHead(200, { "Content-Length": size });
    return req.method === "HEAD" ? res.end() : createReadStream(path).pipe(res);
  });
  return new Promise((resolve) => srv.listen(port, "127.0.0.1", () => resolve(srv)));
}
