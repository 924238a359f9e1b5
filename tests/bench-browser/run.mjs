// Driver of the browser benchmarks (issue 9 P2/P3/P4/P6, issue 27 P11): serves pages and tables on loopback, runs the cases in headless Chromium, writes the report.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { chromium } from "playwright-core";
import { parquetMetadataAsync } from "hyparquet";
import { serve, sequentialRoundTrips } from "./server.mjs";

const { values: opt } = parseArgs({ options: {
  warehouse: { type: "string" }, www: { type: "string" }, pkg: { type: "string" }, app: { type: "string" },
  out: { type: "string" }, runs: { type: "string", default: "3" }, latency: { type: "string", default: "50" },
  anchors: { type: "string" }, git: { type: "string", default: "" }, only: { type: "string", default: "" },
  profile: { type: "string", default: "wasm-release" }, trace: { type: "boolean", default: false },
  p4: { type: "string", default: "" }, cpuprofile: { type: "string", default: "" },
  "chrome-trace": { type: "string", default: "" },  // read with timeline.mjs
  "click-after": { type: "string", default: "500" },  // P4 click: ms from the catalog on screen to the click
  // --object-cache off: the app's object cache (Cache API, README "Caching") switched off, to price it
  "object-cache": { type: "string", default: "" },
  // P11: deep links on a server with docs/hosting.md's caching headers, cold and on a second visit, for --app and,
  // in the same run, interleaved, for --anchor-app (the build to compare with, e.g. main's)
  p11: { type: "boolean", default: false }, "anchor-app": { type: "string", default: "" },
  "revisit-after": { type: "string", default: "4000" },  // the object cache writes after 1.5 s without reads
  "p11-case": { type: "string", default: "" },
  // P8 in the app: the Data tab of the perf tables read whole with ?threads=1 and with every core (the page and its scan
  // workers), on a loopback server without added latency
  "p8-app": { type: "boolean", default: false },  // --p11-case SUBSTRING: only the P11 cases whose name has it  // P11: ms from the first visit's rows to the second visit
} });
const HERE = path.dirname(new URL(import.meta.url).pathname);
const RUNS = Number(opt.runs), LATENCY = Number(opt.latency);
const load = () => os.loadavg().map((l) => l.toFixed(2)).join(" ");
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
const MiB = (b) => b / 1048576;

function launch() {
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), "lakescope-bench-chromium-"));
  return chromium.launchPersistentContext(userDataDir, {
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium", headless: true, viewport: { width: 1280, height: 760 },
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
      "--disable-component-update", "--disable-sync"],
  }).then((ctx) => ({ ctx, close: async () => { await ctx.close(); fs.rmSync(userDataDir, { recursive: true, force: true }); } }));
}

/** One case in a fresh browser (fresh profile, fresh wasm memory); off-loopback requests are recorded and refused. */
async function runCase(base, name, args) {
  const browser = await launch();
  const offLoopback = [];
  try {
    await browser.ctx.route((url) => !url.href.startsWith(base), (route) => { offLoopback.push(route.request().url()); route.abort(); });
    const page = await browser.ctx.newPage();
    const errors = [];
    page.on("pageerror", (e) => errors.push(e.message));
    await page.goto(`${base}/bench.html`);
    await page.waitForFunction(() => window.benchReady === true);
    const result = await page.evaluate(([n, a]) => window.benchCase(n, a), [name, args]).catch((e) => ({ error: String(e.message ?? e) }));
    return { ...result, off_loopback: offLoopback, page_errors: errors, load: load() };
  } finally {
    await browser.close();
  }
}

/** Starts Chromium's timeline (tasks, layout, requests, V8's wasm compiles) for `page`; read with timeline.mjs. */
async function startTrace(page) {
  const tracing = await page.context().newCDPSession(page);
  await tracing.send("Tracing.start", { transferMode: "ReturnAsStream",
    traceConfig: { includedCategories: ["devtools.timeline", "disabled-by-default-devtools.timeline", "blink.user_timing", "v8.execute", "toplevel", "v8.wasm", "disabled-by-default-v8.wasm.detailed", "v8", "netlog", "loading"] } });
  return tracing;
}

/** A user-timing mark in the trace and the page's `performance.now()` at it. */
const markTrace = (page) => page.evaluate(() => { performance.mark("lakescope-trace-mark"); return performance.now(); });

/**
 * The app opens `table` on its Data tab until the grid shows rows and at least 100 are loaded: a deep link (`warm`
 * false), clicks on the table and Data in the loaded app (`warm` true), or with `revisit` the deep link a second time
 * in the same browser profile (HTTP cache and the app's object cache as the first visit left them), timed from the
 * second navigation.
 */
async function firstRows(server, table, warm, { revisit = false } = {}) {
  const browser = await launch();
  try {
    const page = await browser.ctx.newPage();
    if (opt["object-cache"] === "off") await page.addInitScript(() => localStorage.setItem("lakescope.object-cache", "off"));
    await page.addInitScript(() => {
      window.__firstRows = null;
      // Awaited once by the driver: polling the page for the rows would take its main thread.
      window.__firstRowsShown = new Promise((resolve) => { window.__resolveFirstRows = resolve; });
      window.__clicks = [];  // when the page received each click
      document.addEventListener("click", () => window.__clicks.push(performance.now()), true);
      const seen = () => {
        const status = document.querySelector('[data-testid="data-status"]')?.textContent ?? "";
        const n = Number((/(\d+) rows/.exec(status) ?? [])[1] ?? 0);
        if (window.__firstRows === null && n >= 100 && document.querySelector('[data-testid="data-grid"] [data-testid="grid-row"]')) {
          window.__firstRows = performance.now();
          window.__firstRowsAt = Date.now();
          window.__resolveFirstRows();
        }
      };
      new MutationObserver(seen).observe(document, { subtree: true, childList: true, characterData: true });
    });
    let from = server.log.length, t0, cdp = null, profileMark = null, tracing = null, traceMark = null;
    if (warm) {
      await page.goto(`${server.url}/?warehouse=wh/`);
      const node = page.locator(`[data-table="${table}"]`);
      await node.waitFor({ timeout: 120_000 });
      await page.waitForTimeout(Number(opt["click-after"]));
      from = server.log.length;
      if (opt["chrome-trace"]) {  // --chrome-trace DIR: Chromium's timeline (tasks, layout, requests) from just before the clicks
        tracing = await startTrace(page);
        traceMark = await markTrace(page);
      }
      if (opt.cpuprofile) {  // --cpuprofile DIR: a sampling CPU profile of the page from just before the clicks
        cdp = await page.context().newCDPSession(page);
        await cdp.send("Profiler.enable");
        await cdp.send("Profiler.setSamplingInterval", { interval: 100 });
        await cdp.send("Profiler.start");
        // A named 3 ms busy loop: its samples tie the profile's clock to performance.now().
        profileMark = await page.evaluate(() => (function lakescopeProfileMark() {
          const t = performance.now();
          while (performance.now() - t < 3);
          return t;
        })());
      }
      await node.click();
      await page.locator('[data-testid="tab-data"]').click();
      // From the click on the table as the page received it: Playwright's checks before
      // dispatching it (20-30 ms) are not the app's time.
      t0 = await page.evaluate(() => window.__clicks[0]);
    } else {
      t0 = 0;  // navigation start
      const link = `${server.url}/?warehouse=wh/&table=${table}&tab=data`;
      if (revisit) {
        await page.goto(link);
        await page.evaluate(() => window.__firstRowsShown);
        await page.waitForTimeout(Number(opt["revisit-after"]));  // the first visit's cache writes settle
        from = server.log.length;
      }
      if (opt["chrome-trace"]) tracing = await startTrace(page);  // from navigation start; marked once rows show
      await page.goto(link);
    }
    let timer;
    await Promise.race([page.evaluate(() => window.__firstRowsShown),
      new Promise((_, reject) => { timer = setTimeout(() => reject(new Error("no rows within 120 s")), 120_000); })]);
    clearTimeout(timer);
    const ms = (await page.evaluate(() => window.__firstRows)) - t0;
    if (tracing) {
      traceMark ??= await markTrace(page);  // a deep link: the mark ties this document's clock to the trace's
      const done = new Promise((resolve) => tracing.once("Tracing.tracingComplete", resolve));
      await tracing.send("Tracing.end");
      const { stream } = await done;
      let text = "";
      for (;;) {
        const { data, eof, base64Encoded } = await tracing.send("IO.read", { handle: stream });
        text += base64Encoded ? Buffer.from(data, "base64").toString() : data;
        if (eof) break;
      }
      fs.mkdirSync(opt["chrome-trace"], { recursive: true });
      const file = path.join(opt["chrome-trace"], `${table}-${Date.now()}.json`);
      fs.writeFileSync(file, JSON.stringify({ ...JSON.parse(text), lakescope: { mark: traceMark, click: t0, firstRows: t0 + ms } }));
      console.log(`  chrome trace: ${file}`);
    }
    if (cdp) {
      const { profile } = await cdp.send("Profiler.stop");
      fs.mkdirSync(opt.cpuprofile, { recursive: true });
      const file = path.join(opt.cpuprofile, `${table}-${Date.now()}.cpuprofile`);
      fs.writeFileSync(file, JSON.stringify({ ...profile, lakescope: { mark: profileMark, click: t0, firstRows: t0 + ms } }));
      console.log(`  cpu profile: ${file}`);
    }
    // Only requests sent before the rows showed (the app reads its menus right after).
    const shownAt = await page.evaluate(() => window.__firstRowsAt);
    const requests = server.log.slice(from).filter((e) => e.end !== null && e.at <= shownAt);
    const lake = requests.filter((e) => e.url.startsWith("/wh/"));
    if (opt.trace) {  // --trace: each request's depth and times in ms from the start (navigation or click)
      const since = shownAt - ms;
      sequentialRoundTrips(requests);
      for (const e of requests) console.log(`  d${e.depth} ${(e.at - since).toFixed(0).padStart(5)} +${(e.end - e.start).toFixed(0).padStart(4)} ${e.url} ${e.range ?? ""}`);
      const clicks = await page.evaluate(() => window.__clicks);
      console.log(`  clicks at ${clicks.map((c) => (c - t0).toFixed(0)).join(", ") || "—"} ms; rows shown at ${ms.toFixed(0)} ms`);
    }
    return { ms, requests: requests.length, round_trips: sequentialRoundTrips(requests),
      not_modified: requests.filter((e) => e.status === 304).length,
      warehouse_requests: lake.length, warehouse_round_trips: sequentialRoundTrips(lake.map((e) => ({ ...e }))), load: load() };
  } finally {
    await browser.close();
  }
}

function filesUnder(dir, ext) {
  return fs.readdirSync(dir, { recursive: true }).filter((f) => f.endsWith(ext)).sort().map((f) => path.join(dir, f));
}

/** Largest row group (uncompressed bytes, rows) over the Parquet files. */
async function largestRowGroup(files) {
  let best = { bytes: 0, rows: 0 };
  for (const f of files) {
    const buf = fs.readFileSync(f);
    const meta = await parquetMetadataAsync(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength));
    for (const rg of meta.row_groups) if (Number(rg.total_byte_size) > best.bytes) best = { bytes: Number(rg.total_byte_size), rows: Number(rg.num_rows) };
  }
  return best;
}

const report = { date: new Date().toISOString().replace(/:\d\d\.\d+Z$/, " UTC").replace("T", " "), git: opt.git,
  machine: { cpus: os.cpus().length, cpu: os.cpus()[0]?.model, memory_gib: Math.round(os.totalmem() / 2 ** 30) },
  chromium: null, wasm_profile: opt.profile, runs: RUNS, latency_ms: LATENCY, load_before: load(), cases: {}, p4: {}, p6: {}, p11: {}, targets: [] };
const site = await serve({ "/": opt.www, "/pkg/": opt.pkg, "/nm/": path.join(HERE, "node_modules"), "/wh/": opt.warehouse });
const appendFiles = filesUnder(path.join(opt.warehouse, "perf.db/append_rows"), ".parquet");
const fileUrls = appendFiles.map((f) => `${site.url}/wh/${path.relative(opt.warehouse, f)}`);
const wh = `${site.url}/wh/`;
/** ReadRequest::memory_budget of the P6 scans (bytes of fetched data-file content held at once). */
const P6_BUDGET = { pk_upsert: 6 * 2 ** 20, append_rows: 8 * 2 ** 20 };
const cases = {
  "p2.lakescope": ["lakescope", { warehouse: wh, table: "perf.pk_upsert" }],
  "p3.lakescope": ["lakescope", { warehouse: wh, table: "perf.append_rows" }],
  "p3.duckdb": ["duckdb", { files: fileUrls }],
  "p3.parquet_wasm": ["parquetWasm", { files: fileUrls }],
  "p3.hyparquet": ["hyparquet", { files: fileUrls }],
  // P6: the same scans with a memory budget the table is more than 10x larger than.
  "p6.lakescope.pk_upsert": ["lakescope", { warehouse: wh, table: "perf.pk_upsert", budget: P6_BUDGET.pk_upsert }],
  "p6.lakescope.append_rows": ["lakescope", { warehouse: wh, table: "perf.append_rows", budget: P6_BUDGET.append_rows }],
};
// P8: the P2 and P3 reads on a pool of 1 .. CPUs + 1 Web Workers (the scaling curve; 1 worker prices the pool itself).
const POOL_SIZES = [...new Set([1, 2, os.cpus().length, os.cpus().length + 1])].sort((a, b) => a - b);
for (const workers of POOL_SIZES) {
  for (const table of ["pk_upsert", "append_rows"]) {
    cases[`p8.pool${workers}.${table}`] = ["lakescopePool", { warehouse: wh, table: `perf.${table}`, workers }];
  }
}
// P8 warm (every reader has read one split before, untimed: V8's optimizing tier has compiled the hot functions, as in a
// page that keeps its pool), over HTTP and from a browser-local warehouse (OPFS: no loopback server beside the readers).
const CPUS = os.cpus().length;
for (const table of ["pk_upsert", "append_rows"]) {
  for (const [source, opfs] of [["http", false], ["opfs", true]]) {
    const args = { warehouse: wh, table: `perf.${table}`, opfs, warm: true };
    cases[`p8.warm.${source}.page.${table}`] = ["lakescope", args];
    cases[`p8.warm.${source}.pool${CPUS}.${table}`] = ["lakescopePool", { ...args, workers: CPUS }];
    // the same pool planned for the workers (the last append files in pieces of rows), to price the pieces
    if (table === "append_rows") cases[`p8.warm.${source}.pool${CPUS}pieces.${table}`] = ["lakescopePool", { ...args, workers: CPUS, pieces: true }];
  }
}
{
  const b = await launch();
  report.chromium = b.ctx.browser()?.version() ?? (await (await b.ctx.newPage()).evaluate(() => navigator.userAgent));
  await b.close();
}
// --only A,B: the cases whose name has any of the comma-separated parts
const names = Object.keys(cases).filter((n) => opt.only.split(",").some((part) => n.includes(part)));
for (let i = 0; i < RUNS; i++) {
  for (let k = 0; k < names.length; k++) {  // interleaved, the order rotating each run
    const name = names[(k + i) % names.length];
    const r = await runCase(site.url, ...cases[name]);
    console.log(`run ${i + 1} ${name}: ${JSON.stringify(r)}`);
    (report.cases[name] ??= { runs: [] }).runs.push(r);
  }
}
await site.close();
for (const c of Object.values(report.cases)) {
  const ok = c.runs.filter((r) => !r.error);
  c.rows = ok[0]?.rows ?? 0;
  c.median_ms = ok.length ? median(ok.map((r) => r.ms)) : null;
  c.rows_per_s = c.median_ms ? c.rows / (c.median_ms / 1000) : null;
  c.checksums = [...new Set(ok.map((r) => r.checksum))];
  c.errors = [...new Set(c.runs.filter((r) => r.error).map((r) => r.error.split("\n")[0]))];
  c.off_loopback = [...new Set(c.runs.flatMap((r) => r.off_loopback ?? []))];
  if (ok[0]?.memory_bytes) c.peak_memory_bytes = Math.max(...ok.map((r) => r.memory_bytes));
}

if (opt.app) {  // P4: the real app behind a loopback server that delays every response
  const app = await serve({ "/": opt.app, "/wh/": opt.warehouse }, { latencyMs: LATENCY });
  for (const table of ["perf.pk_upsert", "perf.append_rows"]) {
    for (const warm of [false, true]) {
      const key = `${table} ${warm ? "click in the loaded app" : "deep link (app load included)"}`;
      if (!key.includes(opt.p4)) continue;  // --p4 SUBSTRING: only the P4 cases whose name has it
      for (let i = 0; i < RUNS; i++) {
        const r = await firstRows(app, table, warm).catch((e) => ({ error: String(e.message ?? e) }));
        console.log(`P4 ${key} run ${i + 1}: ${JSON.stringify(r)}`);
        (report.p4[key] ??= { runs: [] }).runs.push(r);
      }
      const ok = report.p4[key].runs.filter((r) => !r.error);
      Object.assign(report.p4[key], { median_ms: ok.length ? median(ok.map((r) => r.ms)) : null,
        round_trips: ok.length ? Math.max(...ok.map((r) => r.round_trips)) : null,
        warehouse_round_trips: ok.length ? Math.max(...ok.map((r) => r.warehouse_round_trips)) : null });
    }
  }
  await app.close();
}
/**
 * P8 in the app: the Data tab of `table` read whole with `threads` readers (the page and threads - 1 scan workers) in a
 * fresh browser, timed by the app's own status line (from the read's start to its last row). `first`: the read that
 * starts the pool; `second`: the Data tab opened again in the same page (the Overview, then the Data tab), its pool kept.
 */
async function appScan(server, table, threads) {
  const browser = await launch();
  try {
    const page = await browser.ctx.newPage();
    const read = async () => {
      await page.getByTestId("row-total").waitFor({ timeout: 900_000 });
      if (await page.getByTestId("data-bound").count()) throw new Error(`${table}: the Data tab stopped at its bound of rows held`);
      const status = await page.getByTestId("data-status").textContent();
      const ms = Number((/ (\d+) ms/.exec(status) ?? [])[1]);
      const rows = Number((/^(\d+) rows/.exec(status) ?? [])[1]);
      const workers = Number((/(\d+) splits? on workers/.exec(status) ?? [0, 0])[1]);
      return { ms, rows, workers };
    };
    await page.goto(`${server.url}/?warehouse=wh/&table=${table}&tab=data&threads=${threads}`);
    const first = await read();
    await page.getByTestId("tab-overview").click();
    await page.getByTestId("row-total").waitFor({ state: "detached", timeout: 60_000 });
    await page.getByTestId("tab-data").click();
    const second = await read();
    const memory = await page.evaluate(() => performance.memory?.usedJSHeapSize ?? null);
    return { first, second, js_heap: memory, load: load() };
  } finally {
    await browser.close();
  }
}
if (opt.app && opt["p8-app"]) {
  const app = await serve({ "/": opt.app, "/wh/": opt.warehouse });
  const readers = [1, os.cpus().length];
  report.p8_app = {};
  for (let i = 0; i < RUNS; i++) {
    for (const table of ["perf.pk_upsert", "perf.append_rows"]) {
      for (const threads of readers) {  // interleaved
        const key = `${table} threads=${threads}`;
        const r = await appScan(app, table, threads).catch((e) => ({ error: String(e.message ?? e) }));
        console.log(`P8 app ${key} run ${i + 1}: ${JSON.stringify(r)}`);
        (report.p8_app[key] ??= { table, threads, runs: [] }).runs.push(r);
      }
    }
  }
  await app.close();
  for (const c of Object.values(report.p8_app)) {
    const ok = c.runs.filter((r) => !r.error);
    c.first_ms = ok.length ? median(ok.map((r) => r.first.ms)) : null;
    c.second_ms = ok.length ? median(ok.map((r) => r.second.ms)) : null;
    c.rows = ok[0]?.first.rows ?? null;
    c.workers_splits = ok.map((r) => `${r.first.workers}/${r.second.workers}`);
  }
}
if (opt.p11) {  // P11: cold deep link and second visit, on a server with docs/hosting.md's caching headers
  const builds = { app: opt.app, ...(opt["anchor-app"] ? { anchor: opt["anchor-app"] } : {}) };
  const servers = {};
  for (const [name, dir] of Object.entries(builds)) servers[name] = await serve({ "/": dir, "/wh/": opt.warehouse }, { latencyMs: LATENCY, staticHost: { warehouse: "documented" } });
  for (let i = 0; i < RUNS; i++) {
    for (const table of ["perf.pk_upsert", "perf.append_rows"]) {
      for (const revisit of [false, true]) {
        for (const name of Object.keys(builds)) {  // interleaved: the anchor build beside this one
          const key = `${name}: ${table} ${revisit ? "second visit" : "cold deep link"}`;
          if (!key.includes(opt["p11-case"])) continue;
          const r = await firstRows(servers[name], table, false, { revisit }).catch((e) => ({ error: String(e.message ?? e) }));
          console.log(`P11 ${key} run ${i + 1}: ${JSON.stringify(r)}`);
          (report.p11[key] ??= { build: builds[name], runs: [] }).runs.push(r);
        }
      }
    }
  }
  for (const s of Object.values(servers)) await s.close();
  for (const p of Object.values(report.p11)) {
    const ok = p.runs.filter((r) => !r.error);
    Object.assign(p, { median_ms: ok.length ? median(ok.map((r) => r.ms)) : null,
      round_trips: ok.length ? Math.max(...ok.map((r) => r.round_trips)) : null,
      warehouse_round_trips: ok.length ? Math.max(...ok.map((r) => r.warehouse_round_trips)) : null,
      requests: ok.length ? Math.max(...ok.map((r) => r.requests)) : null });
  }
}
report.load_after = load();

// P6: peak wasm memory of lakescope's scans against the largest row group.
for (const [name, table] of [["p6.lakescope.pk_upsert", "pk_upsert"], ["p6.lakescope.append_rows", "append_rows"]]) {
  if (!report.cases[name]) continue;
  const files = filesUnder(path.join(opt.warehouse, `perf.db/${table}`), ".parquet");
  const rg = await largestRowGroup(files);
  const bytes = files.reduce((s, f) => s + fs.statSync(f).size, 0);
  report.p6[table] = { largest_row_group_bytes: rg.bytes, largest_row_group_rows: rg.rows, data_files: files.length,
    data_bytes: bytes, memory_budget: P6_BUDGET[table], peak_memory_bytes: report.cases[name]?.peak_memory_bytes ?? null };
}

// Targets.
const anchors = opt.anchors && fs.existsSync(opt.anchors) ? JSON.parse(fs.readFileSync(opt.anchors, "utf8")) : null;
const java = anchors?.tables?.pk_upsert?.readers?.java;
const rate = (n) => report.cases[n]?.rows_per_s;
const target = (id, what, value, goal, met) =>
  report.targets.push({ id, what, value: Number.isFinite(value) ? value : null, goal, met: Number.isFinite(value) ? met : null });
if (java) {
  const javaInProcess = java.rows / java.median_in_process_s;
  report.java = { rows_per_s_wall: java.rows_per_s, rows_per_s_in_process: javaInProcess, date: anchors.date, load: [anchors.load_before, anchors.load_after] };
  target("P2", "perf.pk_upsert merge-on-read in wasm rows/s vs Java Paimon 0.9 native (in-process)", rate("p2.lakescope") / javaInProcess, ">= 1x", rate("p2.lakescope") >= javaInProcess);
}
for (const [other, goal] of [["duckdb", 1.5], ["parquet_wasm", 1.2], ["hyparquet", 3]]) {
  const ratio = rate("p3.lakescope") / rate(`p3.${other}`);
  target("P3", `perf.append_rows rows/s lakescope vs ${other}`, ratio, `>= ${goal}x`, ratio >= goal);
}
for (const [table, single] of [["pk_upsert", "p2.lakescope"], ["append_rows", "p3.lakescope"]]) {
  const ratio = rate(`p8.pool${os.cpus().length}.${table}`) / rate(single);
  target("P8", `perf.${table} rows/s on a pool of ${os.cpus().length} Web Workers vs one reader on the page (${single})`, ratio, ">= 1.7x", ratio >= 1.7);
  for (const source of ["http", "opfs"]) {
    const warm = rate(`p8.warm.${source}.pool${CPUS}.${table}`) / rate(`p8.warm.${source}.page.${table}`);
    target("P8", `perf.${table} warm, ${source === "opfs" ? "from OPFS" : "over HTTP"}: rows/s on a pool of ${CPUS} Web Workers vs one reader on the page`, warm, ">= 1.7x", warm >= 1.7);
  }
}
for (const table of ["perf.pk_upsert", "perf.append_rows"]) {
  const alone = report.p8_app?.[`${table} threads=1`], pooled = report.p8_app?.[`${table} threads=${os.cpus().length}`];
  if (!alone?.first_ms || !pooled?.first_ms) continue;
  for (const [read, key] of [["first read (the pool starts)", "first_ms"], ["second read (the pool kept)", "second_ms"]]) {
    const ratio = alone[key] / pooled[key];
    target("P8", `${table} in the app's Data tab, ${read}: ms on the page alone / with ${os.cpus().length - 1} scan worker(s)`, ratio, ">= 1.7x", ratio >= 1.7);
  }
}
for (const [key, p] of Object.entries(report.p4)) {
  if (p.median_ms === null) continue;
  target("P4", `${key}: sequential round trips (all requests)`, p.round_trips, "<= 5", p.round_trips <= 5);
  target("P4", `${key}: ms to first 100 rows`, p.median_ms, "< 400", p.median_ms < 400);
}
for (const [key, p] of Object.entries(report.p11)) {
  if (p.median_ms === null || !key.startsWith("app:")) continue;
  const goal = key.endsWith("second visit") ? 350 : 700;
  target("P11", `${key.slice(5)}: ms to first 100 rows`, p.median_ms, `< ${goal}`, p.median_ms < goal);
}
for (const [table, p] of Object.entries(report.p6)) {
  if (!p.peak_memory_bytes) continue;
  target("P6", `${table}: peak wasm memory / largest row group (uncompressed)`, p.peak_memory_bytes / p.largest_row_group_bytes,
    "<= 2x + merge heap", p.peak_memory_bytes <= 2 * p.largest_row_group_bytes);
}

// the report goes to --out, or beside the other benchmark reports (target/bench)
opt.out ??= path.join(process.env.CARGO_TARGET_DIR ?? path.join(HERE, "..", "..", "target"), "bench");
fs.mkdirSync(opt.out, { recursive: true });
fs.writeFileSync(path.join(opt.out, "browser_report.json"), JSON.stringify(report, null, 2));
fs.writeFileSync(path.join(opt.out, "browser_report.md"), markdown(report));
console.log(`wrote ${opt.out}/browser_report.{md,json}`);

function markdown(r) {
  const f = (x, d = 0) => (x === null || x === undefined ? "—" : Number(x).toLocaleString("en-US", { maximumFractionDigits: d, minimumFractionDigits: d }));
  const lines = [`# lakescope browser benchmark`, "",
    `- date: ${r.date}, lakescope at \`${r.git}\` (wasm entry point: cargo profile ${r.wasm_profile}), ${r.chromium}, ${r.machine.cpus} CPUs (${r.machine.cpu}), ${r.machine.memory_gib} GiB`,
    `- load average (1/5/15) before: ${r.load_before}, after: ${r.load_after}; ${r.runs} runs per case, interleaved, each in a fresh headless Chromium`,
    `- timed in the page from the scan's start (reader already instantiated) to the last row touched; data over loopback HTTP`, "",
    "## Targets", "", "| id | what | value | goal | met |", "|---|---|---|---|---|",
    ...r.targets.map((t) => `| ${t.id} | ${t.what} | ${f(t.value, 2)} | ${t.goal} | ${t.met === null ? "not measured" : t.met ? "**met**" : "not met"} |`), "",
    "## Scans (P2, P3; P8: the same reads on a pool of N Web Workers, `p8.poolN`)", "", "| case | rows | median ms | rows/s | runs (ms) | load per run | checksums | errors / off-loopback requests |", "|---|---|---|---|---|---|---|---|",
    ...Object.entries(r.cases).map(([n, c]) => `| ${n} | ${f(c.rows)} | ${f(c.median_ms)} | ${f(c.rows_per_s)} | ${c.runs.map((x) => (x.error ? "err" : f(x.ms))).join(", ")} | ${c.runs.map((x) => x.load.split(" ")[0]).join(", ")} | ${c.checksums.map((x) => f(x, 1)).join(", ")} | ${[...c.errors, ...c.off_loopback].join("; ") || "—"} |`), ""];
  if (r.java) lines.push(`Java Paimon 0.9 (P1 run of scripts/bench.sh, ${r.java.date}, load ${r.java.load.join(" → ")}): ${f(r.java.rows_per_s_in_process)} rows/s in-process, ${f(r.java.rows_per_s_wall)} rows/s wall (JVM start-up included).`, "");
  lines.push(`## P4: time to first rows in the app (${r.latency_ms} ms per response)`, "", "| case | median ms | runs (ms) | requests | sequential round trips (all / warehouse) | load |", "|---|---|---|---|---|---|",
    ...Object.entries(r.p4).map(([k, p]) => `| ${k} | ${f(p.median_ms)} | ${p.runs.map((x) => (x.error ? "err" : f(x.ms))).join(", ")} | ${p.runs.map((x) => x.requests ?? "—").join(", ")} | ${p.round_trips ?? "—"} / ${p.warehouse_round_trips ?? "—"} | ${p.runs.map((x) => x.load?.split(" ")[0] ?? "—").join(", ")} |`), "",
    `## P11: deep links on a static host with the documented caching headers (${r.latency_ms} ms per response)`, "", "| build: case | median ms | runs (ms) | requests (304s) | sequential round trips (all / warehouse) | load |", "|---|---|---|---|---|---|",
    ...Object.entries(r.p11).map(([k, p]) => `| ${k} | ${f(p.median_ms)} | ${p.runs.map((x) => (x.error ? "err" : f(x.ms))).join(", ")} | ${p.runs.map((x) => (x.requests === undefined ? "—" : `${x.requests} (${x.not_modified})`)).join(", ")} | ${p.round_trips ?? "—"} / ${p.warehouse_round_trips ?? "—"} | ${p.runs.map((x) => x.load?.split(" ")[0] ?? "—").join(", ")} |`), "",
    "## P8 in the app: the Data tab read whole (`?threads=N`: the page and N - 1 scan workers; loopback, no added latency)", "", "| case | rows | first read: median ms | runs | second read: median ms | runs | splits on workers (first/second) | load |", "|---|---|---|---|---|---|---|---|",
    ...Object.entries(r.p8_app ?? {}).map(([k, p]) => `| ${k} | ${f(p.rows)} | ${f(p.first_ms)} | ${p.runs.map((x) => (x.error ? "err" : f(x.first.ms))).join(", ")} | ${f(p.second_ms)} | ${p.runs.map((x) => (x.error ? "err" : f(x.second.ms))).join(", ")} | ${p.workers_splits.join(", ")} | ${p.runs.map((x) => x.load?.split(" ")[0] ?? "—").join(", ")} |`), "",
    "## P6: peak wasm memory (scan with a memory budget)", "", "| table | data files | data MiB | memory budget MiB | largest row group (rows, uncompressed MiB) | peak wasm memory MiB | ratio |", "|---|---|---|---|---|---|---|",
    ...Object.entries(r.p6).filter(([, p]) => p.peak_memory_bytes).map(([t, p]) => `| ${t} | ${p.data_files} | ${f(MiB(p.data_bytes), 1)} | ${f(MiB(p.memory_budget), 1)} | ${f(p.largest_row_group_rows)}, ${f(MiB(p.largest_row_group_bytes), 1)} | ${f(MiB(p.peak_memory_bytes ?? 0), 1)} | ${f((p.peak_memory_bytes ?? 0) / p.largest_row_group_bytes, 2)}x |`), "");
  return lines.join("\n");
}
