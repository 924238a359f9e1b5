// The Data tab's scan pool (P8): a Paimon table of a warehouse is read by the page and its scan
// workers (Web Workers running the app's own wasm module) at once. Every demo Paimon table, with
// and without columns, a filter, the audit log and time travel, shows the same rows in the same
// order as the page reading alone (`?threads=1`), and workers that fail or never load only make
// the page read their splits itself. The Data tab stops at its bound of rows held (`&grid-mib=N`)
// and shows the table's first rows, on the page and on the workers.
// By hand: LAKESCOPE_URL=http://127.0.0.1:8080/ node --test scan_pool.test.js
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { DEMO_TABLES, shot, testBrowser } from "./harness.js";

const { openTable } = testBrowser();

/** Every row the Data tab read, in order: its CSV (or JSON Lines) export (the grid shows a few at a time). */
async function exported(page, format = "csv") {
  const [download] = await Promise.all([page.waitForEvent("download"), page.getByTestId(`export-${format}`).click()]);
  return readFileSync(await download.path(), "utf8").split("\n");
}

/** The Data tab of `table` with `params`: its row total, header, rows in order, and the status
 * line's note of the splits the workers read (empty: none). */
async function dataTab(table, params, options) {
  const { page, problems, close } = await openTable(table, `&tab=data${params}`, options);
  try {
    await page.locator('[data-testid="row-total"], [data-testid="data-error"]').first().waitFor({ timeout: 60_000 });
    if (options?.again) {
      // read a second time in the same page: the pool started by the first read is ready, so
      // whether workers take splits does not depend on how fast they start
      await page.getByTestId("tab-overview").click();
      await page.getByTestId("row-total").waitFor({ state: "detached", timeout: 60_000 });
      await page.getByTestId("tab-data").click();
      await page.locator('[data-testid="row-total"], [data-testid="data-error"]').first().waitFor({ timeout: 60_000 });
    }
    const failed = await page.getByTestId("data-error").count();
    assert.equal(failed, 0, failed ? await page.getByTestId("data-error").textContent() : "");
    const workers = (await page.getByTestId("data-workers").count())
      ? (await page.getByTestId("data-workers").textContent()).trim()
      : "";
    const bound = (await page.getByTestId("data-bound").count())
      ? (await page.getByTestId("data-bound").textContent()).trim()
      : "";
    const out = {
      bound,
      total: await page.getByTestId("row-total").textContent(),
      heads: await page.locator("[data-testid=data-grid] .gh-name").allTextContents(),
      rows: await exported(page),
      jsonl: options?.jsonl ? await exported(page, "jsonl") : undefined,
      workers,
      problems,
    };
    if (options?.screenshot) await shot(page, options.screenshot);
    return out;
  } finally {
    await close();
  }
}

/** Asserts that two exports have the same lines in the same order, naming the first that differs. */
function sameLines(got, want, what) {
  const at = want.findIndex((line, i) => got[i] !== line);
  assert.ok(at < 0 && got.length === want.length,
    `${what}: ${got.length} against ${want.length} lines; line ${at} is ${JSON.stringify(got[at])}, not ${JSON.stringify(want[at])}`);
  assert.ok(want.length > 1, `${what}: no rows`);
}

/** Asserts that the pool's read of `table` with `params` equals the page's own; the workers' note. */
async function sameAsThePageAlone(table, params, options = {}) {
  const alone = await dataTab(table, `${params}&threads=1`);
  const pooled = await dataTab(table, `${params}&threads=3`, { again: true, ...options });
  const what = `${table}${params}`;
  assert.equal(alone.workers, "", `${what}: ?threads=1 used workers`);
  assert.equal(pooled.total, alone.total, what);
  assert.deepEqual(pooled.heads, alone.heads, what);
  sameLines(pooled.rows, alone.rows, what);
  assert.deepEqual([...alone.problems, ...pooled.problems], [], what);
  return pooled.workers;
}

const PAIMON_TABLES = Object.entries(DEMO_TABLES)
  .filter(([db]) => db !== "iceberg")
  .flatMap(([db, tables]) => tables.map((t) => `${db}.${t}`));

test("every demo Paimon table reads the same rows in the same order on the scan workers as on the page alone", async () => {
  const used = [];
  for (const table of PAIMON_TABLES) {
    const workers = await sameAsThePageAlone(table, "", { screenshot: table === "shop.user_behavior" ? "scan-pool-user-behavior" : undefined });
    if (workers) used.push(`${table}: ${workers}`);
  }
  // unasked, a read of less than 16 MiB of data files stays on the page, whatever the machine
  const unasked = await dataTab("shop.user_behavior", "");
  assert.equal(unasked.workers, "", "a small read was shared out unasked");
  // tables of many splits (shop.user_behavior: 39 data files) share them out
  assert.ok(used.some((u) => u.startsWith("shop.user_behavior: ")), used.join("; "));
  assert.ok(used.length >= 4, `only ${used.length} tables used the workers: ${used.join("; ")}`);
});

test("columns, a filter, the audit log and time travel read the same on the scan workers", async () => {
  const cases = [
    ["corpus.pk_dedup", "&filter=qty%20%3E%3D%205&cols=qty,id,name"],
    ["corpus.pk_dedup", "&audit=1&snapshot=3"],
    ["corpus.append_dt", "&audit=1&cols=dt,id&filter=id%20%3E%20100"],
    ["java09.pk_compacted", "&snapshot=4"],
    ["shop.user_behavior", "&cols=behavior,user_id&audit=1"],
  ];
  const used = [];
  for (const [table, params] of cases) {
    if (await sameAsThePageAlone(table, params)) used.push(`${table}${params}`);
  }
  assert.ok(used.length >= 3, `only ${used.join("; ")} used the workers`);
});

test("the Data tab holds rows up to its bound: it stops there, says so, and shows the table's first rows", async () => {
  const table = "demo.events";  // 120,000 rows, about 4 MiB in Arrow memory
  const whole = await dataTab(table, "&threads=1", { jsonl: true });
  assert.equal(whole.bound, "", "the whole table is under the default bound of 512 MiB");
  assert.equal(whole.total, "120000 rows");
  // both exports are written in pieces of 1 MiB (3 and 7 here): every row once, in order
  assert.equal(whole.rows.length, 120002);
  assert.equal(whole.jsonl.length, 120001);
  for (let i = 0; i < 120000; i++) {
    assert.ok(whole.rows[i + 1].startsWith(`${i},`), `CSV line ${i + 1}: ${whole.rows[i + 1]}`);
    assert.equal(JSON.parse(whole.jsonl[i]).event_id, i, `JSON line ${i}`);
  }
  for (const threads of [1, 3]) {
    const held = await dataTab(table, `&threads=${threads}&grid-mib=1`, threads === 1 ? { screenshot: "data-bound" } : {});
    const what = `&threads=${threads}&grid-mib=1`;
    assert.match(held.bound, /the first rows only: the Data tab holds at most 1\.0 MiB of rows \(filter, pick columns or use SQL for the rest\)/, what);
    const rows = Number(/^(\d+) rows/.exec(held.total)?.[1]);
    assert.ok(rows > 1000 && rows < 120000, `${what}: ${held.total}`);
    assert.equal(held.rows.length, rows + 2, `${what}: the export has the rows held`);  // header and last newline
    sameLines(held.rows.slice(0, -1), whole.rows.slice(0, rows + 1), `${what}: the rows held are the table's first`);
    assert.deepEqual(held.problems, [], what);
  }
});

/** A scan worker that starts but fails every split it is handed. */
const FAILING_WORKER = `
self.onmessage = ({ data }) => {
  if (data.op === "init") return self.postMessage({ op: "ready" });
  self.postMessage({ op: "failed", read: data.read, split: JSON.parse(data.ticket).index, error: "refused by the test" });
};`;

test("splits a scan worker fails on, or workers that never load, are read by the page: the same rows", async () => {
  const routes = {
    failing: (page) =>
      page.route("**/scan-worker.js", (r) => r.fulfill({ contentType: "text/javascript", body: FAILING_WORKER })),
    missing: (page) => page.route("**/scan-worker.js", (r) => r.fulfill({ status: 410, body: "gone" })),
  };
  const alone = await dataTab("shop.user_behavior", "&threads=1");
  for (const [name, beforeGoto] of Object.entries(routes)) {
    const pooled = await dataTab("shop.user_behavior", "&threads=3", { beforeGoto });
    assert.equal(pooled.workers, "", `${name}: the status line credits workers that read nothing`);
    assert.equal(pooled.total, alone.total, name);
    sameLines(pooled.rows, alone.rows, name);
    assert.deepEqual(pooled.problems.filter((p) => !/scan-worker/.test(p)), [], name);
  }
});
