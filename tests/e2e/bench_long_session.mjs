// P12 (issue 27; run by scripts/bench-all.sh, not by the test command): a long session in one
// page. The demo lake is copied into OPFS, then ROUNDS rounds each open every demo table and each
// of its read tabs (Overview, Schema, Snapshots, Data, Diff, Files) by clicking, as a user does;
// rounds 1–10 also run a query in the SQL console and rounds 1–5 commit an INSERT on OPFS. After
// round 1 and after the last one it forces a garbage collection and measures, over the Chrome
// DevTools protocol, the JS heap in use and the size of every WebAssembly memory, in the page and
// in each of its workers (the SQL engine, the ORC and decoder workers). Goal: at the end ≤ 1.5×
// after round 1. Prints one JSON line per measurement and a last summary line.
//   LAKESCOPE_URL=http://127.0.0.1:8080/ ROUNDS=20 node bench_long_session.mjs
// The app at LAKESCOPE_URL must hold the demo lake (demo/warehouse/) and the SQL engine.
import puppeteer from "puppeteer-core";
import { DEMO_TABLE_NAMES } from "./harness.js";

const BASE = process.env.LAKESCOPE_URL ?? "http://127.0.0.1:8080/";
const ROUNDS = Number(process.env.ROUNDS ?? 20);
const SQL_RUNS = Number(process.env.SQL_RUNS ?? 10);
const COMMITS = Number(process.env.COMMITS ?? 5);
const TABS = ["overview", "schema", "snapshots", "data", "diff", "files"];
const WAIT = { timeout: 120_000 };

/** JS heap in use and WebAssembly memory bytes of one context (page or worker), after a GC. */
async function memoryOf(client) {
  await client.send("HeapProfiler.collectGarbage");
  const { usedSize } = await client.send("Runtime.getHeapUsage");
  const group = "p12";
  const proto = await client.send("Runtime.evaluate", { expression: "WebAssembly.Memory.prototype", objectGroup: group });
  const { objects } = await client.send("Runtime.queryObjects", { prototypeObjectId: proto.result.objectId, objectGroup: group });
  const { result } = await client.send("Runtime.callFunctionOn", {
    objectId: objects.objectId,
    functionDeclaration: "function () { return this.reduce((sum, m) => sum + m.buffer.byteLength, 0); }",
    returnByValue: true,
  });
  await client.send("Runtime.releaseObjectGroup", { objectGroup: group });
  return { js: usedSize, wasm: result.value };
}

/** The page's and each worker's memory, and their sums. */
async function measure(page, pageClient, label) {
  const parts = { page: await memoryOf(pageClient) };
  for (const worker of page.workers()) {
    const name = worker.url().split("/").pop() || worker.url();
    parts[name] = await memoryOf(worker.client).catch((e) => ({ error: String(e.message ?? e) }));
  }
  const sum = (key) => Object.values(parts).reduce((s, p) => s + (p[key] ?? 0), 0);
  const m = { label, js: sum("js"), wasm: sum("wasm"), parts };
  console.log(JSON.stringify(m));
  return m;
}

/** Waits until nothing in the page is loading (no spinner, no busy line) for a moment. */
async function settled(page) {
  await page.waitForFunction(
    () => !document.querySelector(".spinner, .busy, [data-testid='catalog-loading']"),
    { ...WAIT, polling: 50 },
  );
  await new Promise((r) => setTimeout(r, 50));
  await page.waitForFunction(() => !document.querySelector(".spinner, .busy"), { ...WAIT, polling: 50 });
}

async function click(page, selector) {
  await page.waitForSelector(selector, WAIT);
  await page.$eval(selector, (el) => el.click());
}

/** Runs `sql` in the SQL console; throws with the console's message if it failed. */
async function runSql(page, sql) {
  await click(page, '[data-testid="tab-sql"]');
  await page.waitForSelector('[data-testid="sql-editor"]', WAIT);
  await page.$eval('[data-testid="sql-editor"]', (el, text) => {
    el.value = text;
    el.dispatchEvent(new Event("input", { bubbles: true }));
  }, sql);
  await click(page, '[data-testid="sql-run"]');
  await page.waitForFunction(() => {
    const run = document.querySelector('[data-testid="sql-run"]');
    return run && !run.disabled && document.querySelectorAll('[data-testid="sql-result"], [data-testid="sql-failure"]').length > 0;
  }, WAIT);
  const failure = await page.$('[data-testid="sql-failure"]');
  if (failure) throw new Error(`${sql}: ${await failure.evaluate((el) => el.textContent)}`);
}

const browser = await puppeteer.launch({
  executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
  headless: true,
  defaultViewport: { width: 1280, height: 760 },
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync"],
});
try {
  const page = await browser.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  const pageClient = await page.createCDPSession();
  await page.goto(new URL("?warehouse=demo/warehouse/", BASE).href);
  await page.waitForSelector('[data-testid="catalog-tree"]', WAIT);
  // The demo lake into OPFS (the app then opens the copy), where commits can land.
  await click(page, '[data-testid="opfs-button"]');
  await click(page, '[data-testid="opfs-copy-demo"]');
  await page.waitForFunction(
    () => /^opfs:\/\/my-lake\/ · \d+ databases · \d+ tables$/.test(document.querySelector('[data-testid="connection-status"]')?.textContent ?? ""),
    WAIT,
  );
  let first;
  let last;
  const started = Date.now();
  for (let round = 1; round <= ROUNDS; round++) {
    const t0 = Date.now();
    for (const table of DEMO_TABLE_NAMES) {
      await click(page, `[data-testid="table-node"][data-table="${table}"]`);
      await page.waitForSelector('[data-testid="table-panel"]', WAIT);
      for (const tab of TABS) {
        await click(page, `[data-testid="tab-${tab}"]`);
        await page.waitForSelector(`[data-testid="tab-body-${tab}"]`, WAIT);
        // the Data tab is done when it shows its row count (or why it cannot)
        if (tab === "data") await page.waitForSelector('[data-testid="row-total"], [data-testid="data-error"]', WAIT);
        await settled(page);
      }
    }
    if (round <= SQL_RUNS) {
      await click(page, '[data-testid="table-node"][data-table="shop.orders"]');
      await runSql(page, `SELECT COUNT(*) AS n, ${round} AS round FROM shop.orders`);
    }
    if (round <= COMMITS) {
      await click(page, '[data-testid="table-node"][data-table="demo.events"]');
      await runSql(page, `INSERT INTO demo.events VALUES (${1_000_000 + round}, ${round}, 'p12', ${round}.5)`);
    }
    console.log(JSON.stringify({ round, ms: Date.now() - t0 }));
    if (round === 1) first = await measure(page, pageClient, "after round 1");
  }
  last = await measure(page, pageClient, `after round ${ROUNDS}`);
  const ratio = (k) => (first[k] > 0 ? last[k] / first[k] : null);
  console.log(JSON.stringify({
    summary: "P12",
    rounds: ROUNDS,
    tables: DEMO_TABLE_NAMES.length,
    tabs: TABS.length,
    sql_runs: Math.min(SQL_RUNS, ROUNDS),
    commits: Math.min(COMMITS, ROUNDS),
    minutes: +((Date.now() - started) / 60000).toFixed(1),
    js_first_mib: +(first.js / 1048576).toFixed(1),
    js_last_mib: +(last.js / 1048576).toFixed(1),
    js_ratio: +ratio("js").toFixed(2),
    wasm_first_mib: +(first.wasm / 1048576).toFixed(1),
    wasm_last_mib: +(last.wasm / 1048576).toFixed(1),
    wasm_ratio: +ratio("wasm").toFixed(2),
    goal: "≤ 1.5",
    page_errors: errors,
  }));
} finally {
  await browser.close();
}
