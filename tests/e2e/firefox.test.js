// End-to-end smoke test in Firefox ESR (/usr/bin/firefox-esr, headless, driven by puppeteer-core
// over WebDriver BiDi): the catalog, a primary-key table with deletion vectors, an Iceberg table
// with position deletes, a diff, the SQL engine (a Web Worker), and writes to an opfs:// warehouse
// (OPFS, Web Locks), each checked against the corpus's expected rows or the app's own reads.
// By hand: LAKESCOPE_URL=http://127.0.0.1:8080/ node --test firefox.test.js
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync } from "node:fs";
import puppeteer from "puppeteer-core";
import {
  BASE,
  changedRows,
  DEMO_TABLE_NAMES,
  expectedIcebergLines,
  expectedLatest,
  expectedLines,
  expectedRows,
  HAS_ENGINE,
  icebergMetadata,
  NEEDS_ENGINE,
  normaliseLine,
  readGrid,
  SCREENS,
  SHOWN_ERRORS,
} from "./harness.js";

const FIREFOX = process.env.FIREFOX ?? "/usr/bin/firefox-esr";

let browser;
before(async () => {
  assert.ok(existsSync(FIREFOX), `no Firefox at ${FIREFOX} (apt-get install firefox-esr, or set FIREFOX)`);
  mkdirSync(SCREENS, { recursive: true });
  browser = await puppeteer.launch({
    browser: "firefox",
    executablePath: FIREFOX,
    headless: true,
    protocolTimeout: 300_000,
  });
});
after(async () => {
  await browser?.close();
});

const byId = (testid) => `[data-testid="${testid}"]`;
const shot = (page, name) => page.screenshot({ path: `${SCREENS}/firefox-${name}.png` });

/** A page of the app in a fresh browser context (its own OPFS) that records page errors, console
 * errors and missing files (the snapshot after the LATEST hint is probed, as in harness.js). */
async function openPage(path = "") {
  const context = await browser.createBrowserContext();
  const page = await context.newPage();
  await page.setViewport({ width: 1280, height: 760 });
  const problems = [];
  page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
  page.on("console", (m) => {
    if (m.type() === "error" && !/status of 404|404 \(Not Found\)/.test(m.text())) problems.push(`console: ${m.text()}`);
  });
  page.on("response", (r) => {
    if (r.status() === 404 && !/\/snapshot\/snapshot-\d+$/.test(r.url())) problems.push(`404: ${r.url()}`);
  });
  await page.goto(new URL(path, BASE).href);
  return { page, problems, close: () => context.close() };
}

const openTable = (table, params = "") => openPage(`?warehouse=demo/warehouse/&table=${table}${params}`);

/** Waits until `selector` shows, or an error of the app instead (which fails with its text). */
async function settled(page, selector, timeout = 120_000) {
  await page.waitForSelector(`${selector}, ${SHOWN_ERRORS}`, { timeout });
  assert.deepEqual(await page.$$eval(SHOWN_ERRORS, (els) => els.map((e) => e.textContent)), [], "errors shown");
}

/** Waits until an element `testid` has a text matching `re`; returns the text. */
async function textMatching(page, testid, re, timeout = 120_000) {
  const found = await page.waitForFunction(
    (sel, source, flags, errors) => {
      if (document.querySelector(errors)) return `ERROR ${document.querySelector(errors).textContent}`;
      const hit = [...document.querySelectorAll(sel)].find((e) => new RegExp(source, flags).test(e.textContent));
      return hit?.textContent;
    },
    { timeout, polling: 200 },
    byId(testid),
    re.source,
    re.flags,
    SHOWN_ERRORS,
  );
  const text = await found.jsonValue();
  assert.ok(!text.startsWith("ERROR "), text);
  return text;
}

const text = (page, testid) => page.$eval(byId(testid), (e) => e.textContent);
const gridRows = (page, testid = "data-grid") => page.evaluate(readGrid, { testid, most: 5000 });

/** Waits until the Data tab has read every row; returns their count. */
async function rowTotal(page) {
  return Number((await textMatching(page, "row-total", /^\d+ rows$/)).split(" ")[0]);
}

/** Replaces the SQL editor's text and runs it; waits until the run has finished. */
async function runSql(page, sql) {
  await page.locator(byId("sql-editor")).fill(sql);
  await page.click(byId("sql-run"));
  // Run is disabled while statements run (the first run also downloads the engine).
  await page.waitForFunction(
    () => {
      const run = document.querySelector('[data-testid="sql-run"]');
      return run && !run.disabled && document.querySelectorAll('[data-testid="sql-result"], [data-testid="sql-failure"]').length > 0;
    },
    { timeout: 300_000, polling: 250 },
  );
  const failure = await page.$$eval(`${byId("sql-failure")}, ${byId("sql-error")}`, (els) => els.map((e) => e.textContent));
  assert.deepEqual(failure, [], `${sql} ran without errors`);
}

test("Firefox: the catalog lists the demo lake's databases and tables", async () => {
  const { page, problems, close } = await openPage();
  try {
    await settled(page, byId("catalog-tree"), 60_000);
    const tables = await page.$$eval(byId("table-node"), (els) => els.map((e) => e.dataset.table));
    assert.deepEqual(tables, DEMO_TABLE_NAMES);
    assert.match(await text(page, "connection-status"), /5 databases · 17 tables/);
    await shot(page, "01-catalog");
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("Firefox: the Data tab of java09.pk_deletion_vectors (a primary-key table with deletion vectors) has the expected rows", async () => {
  const table = "java09.pk_deletion_vectors";
  const want = expectedLines(table, expectedLatest(table));
  const { page, problems, close } = await openTable(table, "&tab=data");
  try {
    assert.equal(await rowTotal(page), want.length);
    assert.deepEqual((await gridRows(page)).map(normaliseLine).sort(), want);
    await shot(page, "02-deletion-vectors");
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("Firefox: shop.user_behavior read on the scan workers (Web Workers of the app's wasm) shows the page-alone rows in order", async () => {
  const table = "shop.user_behavior";
  const read = async (threads) => {
    const { page, problems, close } = await openTable(table, `&tab=data&threads=${threads}`);
    try {
      let total = await rowTotal(page);
      if (threads > 1) {
        // a second read in the same page: the pool the first one started is ready, so whether
        // workers take splits does not depend on how fast they start
        await page.click(byId("tab-overview"));
        await page.waitForSelector(byId("row-total"), { hidden: true, timeout: 60_000 });
        await page.click(byId("tab-data"));
        total = await rowTotal(page);
      }
      const workers = (await page.$(byId("data-workers"))) ? await text(page, "data-workers") : "";
      if (threads > 1) await shot(page, "03-scan-pool");
      return { total, workers, rows: await gridRows(page), problems };
    } finally {
      await close();
    }
  };
  const alone = await read(1);
  const pooled = await read(3);
  assert.equal(alone.workers, "");
  assert.match(pooled.workers, /\d+ splits? on workers/);
  assert.equal(pooled.total, alone.total);
  assert.deepEqual(pooled.rows, alone.rows);
  assert.deepEqual([...alone.problems, ...pooled.problems], []);
});

test("Firefox: the Data tab of iceberg.mor_position_deletes (position deletes) has the expected rows", async () => {
  const table = "mor_position_deletes";
  const want = expectedIcebergLines(table, icebergMetadata(table)["current-snapshot-id"]);
  const { page, problems, close } = await openTable(`iceberg.${table}`, "&tab=data");
  try {
    assert.equal(await rowTotal(page), want.length);
    assert.deepEqual((await gridRows(page)).map(normaliseLine).sort(), want);
    await shot(page, "03-iceberg");
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("Firefox: the diff of java09.pk_compacted 4 → 5 shows the changed rows", async () => {
  const key = (r) => `${r.dt}/${r.id}`;
  const changed = changedRows(expectedRows("java09.pk_compacted", 4), expectedRows("java09.pk_compacted", 5), key);
  assert.ok(changed.length > 0);
  const { page, problems, close } = await openTable("java09.pk_compacted", "&tab=diff&from=4&to=5");
  try {
    await settled(page, byId("diff-grid"));
    assert.match(await text(page, "diff-summary"), new RegExp(`~${changed.length} changed`));
    const after = (await gridRows(page, "diff-grid")).filter((r) => r.startsWith("update_after|")).map((r) => r.split("|"));
    assert.deepEqual(
      after.map((c) => `${c[1]}/${c[2]}/${c[3]}`).sort(),
      changed.map((r) => `${r.dt}/${r.id}/${r.name}`).sort(),
    );
    await shot(page, "04-diff");
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("Firefox: the SQL engine (a Web Worker) runs a GROUP BY over shop.orders that agrees with the Data tab", NEEDS_ENGINE, async () => {
  const { page, problems, close } = await openTable("shop.orders", "&tab=data");
  try {
    // The expected counts: the Data tab's rows of shop.orders, grouped here.
    await rowTotal(page);
    const heads = await page.$$eval(`${byId("data-grid")} .gh-name`, (els) => els.map((e) => e.textContent));
    const status = heads.indexOf("status");
    assert.ok(status >= 0, `a status column in ${heads}`);
    const counts = new Map();
    for (const row of await gridRows(page)) {
      const s = row.split("|")[status];
      counts.set(s, (counts.get(s) ?? 0) + 1);
    }
    const want = [...counts].map(([s, n]) => `${s}|${n}`).sort();
    assert.ok(want.length >= 2, `several statuses: ${want}`);

    await page.click(byId("tab-sql"));
    await page.waitForSelector(byId("sql-editor"), { timeout: 30_000 });
    await runSql(page, "SELECT status, COUNT(*) FROM shop.orders GROUP BY status");
    assert.deepEqual((await gridRows(page, "sql-grid")).sort(), want);
    await shot(page, "05-sql");
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("Firefox: the demo lake copied to an opfs:// warehouse reads as the demo host does", async () => {
  const table = "java09.pk_deletion_vectors";
  const want = expectedLines(table, expectedLatest(table));
  const { page, problems, close } = await openPage();
  try {
    await settled(page, byId("catalog-tree"), 60_000);
    await page.click(byId("opfs-button"));
    await page.click(byId("opfs-copy-demo"));
    await textMatching(page, "opfs-status", /^Copied \d+ objects/, 300_000);
    await textMatching(page, "connection-status", /^opfs:\/\/my-lake\/ · 5 databases · 17 tables$/, 60_000);
    await shot(page, "06-opfs-copy");
    await page.goto(new URL(`?warehouse=opfs://my-lake&table=${table}&tab=data`, BASE).href);
    assert.equal(await rowTotal(page), want.length);
    assert.deepEqual((await gridRows(page)).map(normaliseLine).sort(), want);
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("Firefox: on an empty opfs:// warehouse the SQL console commits CREATE TABLE and INSERT; the rows read back", NEEDS_ENGINE, async () => {
  const { page, problems, close } = await openPage();
  try {
    await settled(page, byId("catalog-tree"), 60_000);
    await page.click(byId("opfs-button"));
    await page.locator(byId("warehouse-uri")).fill("opfs://firefox-smoke");
    await page.click(byId("opfs-create"));
    await settled(page, byId("catalog-empty"), 60_000);
    await page.click(byId("open-console"));
    await page.waitForSelector(byId("sql-console"), { timeout: 30_000 });

    await runSql(
      page,
      "CREATE DATABASE smoke;\nCREATE TABLE smoke.t (id INT PRIMARY KEY NOT ENFORCED, v STRING);\n" +
        "INSERT INTO smoke.t VALUES (1, 'one'), (2, 'two'), (3, '<b>three</b>');",
    );
    assert.equal((await page.$$(byId("sql-result"))).length, 3);
    await runSql(page, "SELECT id, v FROM smoke.t ORDER BY id");
    const want = ["1|one", "2|two", "3|<b>three</b>"];
    assert.deepEqual(await gridRows(page, "sql-grid"), want);
    await shot(page, "07-opfs-sql");

    // The committed table is in the catalog, and its Data tab reads the same rows.
    await page.waitForSelector('[data-testid="table-node"][data-table="smoke.t"]', { timeout: 30_000 });
    await page.click('[data-testid="table-node"][data-table="smoke.t"]');
    await page.waitForSelector(byId("tab-data"), { timeout: 30_000 });
    await page.click(byId("tab-data"));
    assert.equal(await rowTotal(page), want.length);
    assert.deepEqual((await gridRows(page)).sort(), want);
    assert.equal(await page.$$eval(`${byId("data-grid")} b`, (els) => els.length), 0, "values render as text");
    await shot(page, "08-opfs-data");
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});
