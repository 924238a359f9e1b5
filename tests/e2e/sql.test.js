// End-to-end: the SQL tab. Its engine (DataFusion in a Web Worker) loads only on first use; its
// results must equal the native CLI's on the same warehouse; errors point at their position.
// Needs the engine in dist/ (`bash scripts/build-sql-worker.sh dist` after `trunk build`): without
// it these tests are reported as skipped, with that reason.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { BASE, copyDemoToOpfs, gridRows, HAS_ENGINE, launchBrowser, NEEDS_ENGINE, openTableIn, SCREENS, shot } from "./harness.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const CLI = process.env.LAKESCOPE_CLI ?? `${ROOT}target/debug/lakescope`;
const DEMO = `${ROOT}public/demo/warehouse`;
const WORKER_WASM = /lakescope-sql-worker_bg\.wasm$/;


let browser;
before(async () => {
  mkdirSync(SCREENS, { recursive: true });
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
});

/** Replaces the editor's text and runs it; waits until the run has finished. */
async function runSql(page, sql) {
  await page.getByTestId("sql-editor").fill(sql);
  await page.getByTestId("sql-run").click();
  // Run is disabled while statements run (the first run also downloads the engine).
  await page.waitForFunction(
    () => {
      const run = document.querySelector('[data-testid="sql-run"]');
      return run && !run.disabled && document.querySelectorAll('[data-testid="sql-result"], [data-testid="sql-failure"]').length > 0;
    },
    null,
    { timeout: 180_000 },
  );
}

/** The native CLI's rows for `sql` on the demo warehouse, as `a|b|c` lines (NULL as empty). */
function cliRows(sql) {
  const out = execFileSync(CLI, ["sql", "--warehouse", DEMO, "--format", "csv", "-e", sql], { encoding: "utf8" });
  return out
    .trim()
    .split("\n")
    .slice(1)
    .map((line) => line.split(",").join("|"));
}

test("SQL tab: the engine loads on first use, and a GROUP BY over a lakescope-written table equals the CLI's", NEEDS_ENGINE, async () => {
  const { page, problems, close } = await openTableIn(browser, "shop.user_behavior", "&tab=sql");
  const fetched = [];
  page.on("request", (r) => fetched.push(r.url()));
  try {
    await page.getByTestId("sql-editor").waitFor({ timeout: 30_000 });
    assert.match(await page.getByTestId("sql-editor").inputValue(), /SELECT \* FROM `shop`\.`user_behavior` LIMIT 100;/);
    assert.ok(!fetched.some((u) => WORKER_WASM.test(u)), "the SQL engine is not fetched before it is used");

    const sql = "SELECT behavior, COUNT(*) AS n, MIN(user_id) AS lo FROM shop.user_behavior GROUP BY behavior ORDER BY behavior";
    await runSql(page, `${sql};`);
    assert.ok(fetched.some((u) => WORKER_WASM.test(u)), "the first run fetched the SQL engine");
    const results = page.getByTestId("sql-result");
    assert.equal(await results.count(), 1);
    const browserRows = await gridRows(page, "sql-grid");
    assert.ok(browserRows.length >= 2, `rows: ${browserRows}`);
    if (existsSync(CLI)) {
      assert.deepEqual(browserRows, cliRows(sql));
    }
    assert.match(await page.getByTestId("sql-row-count").textContent(), new RegExp(`^${browserRows.length} rows$`));
    await shot(page, "16-sql-group-by");

    // Time travel by tag with the Flink hint: day-1 has one day of data only.
    await runSql(page, "SELECT DISTINCT dt FROM shop.user_behavior /*+ OPTIONS('scan.tag-name' = 'day-1') */;");
    assert.equal((await gridRows(page, "sql-grid")).length, 1);
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("SQL tab: a malformed statement shows its error at the position, runs nothing after it, and values render as text", NEEDS_ENGINE, async () => {
  const { page, problems, close } = await openTableIn(browser, "shop.orders", "&tab=sql");
  try {
    await page.getByTestId("sql-editor").waitFor({ timeout: 30_000 });
    await runSql(page, "SELECT order_id, status FROM shop.orders WHERE order_id = 3;\nSELEC status FROM shop.orders;\nSELECT 1;");
    const results = page.getByTestId("sql-result");
    assert.equal(await results.count(), 2, "the statement after the error did not run");
    assert.deepEqual(await gridRows(page, "sql-grid"), ["3|shipped"]);
    const error = page.getByTestId("sql-error");
    assert.match(await error.textContent(), /Error at line 2, column 1/);
    assert.match(await error.locator("pre").textContent(), /2 \| SELEC status FROM shop\.orders;\n\s+\| \^/);
    // the editor's cursor is put on the error
    const cursor = await page.getByTestId("sql-editor").evaluate((e) => e.selectionStart);
    assert.equal(cursor, "SELECT order_id, status FROM shop.orders WHERE order_id = 3;\n".length);
    await shot(page, "17-sql-error");

    const xss = "<img src=x onerror=alert(1)>";
    await runSql(page, `SELECT '${xss}' AS v;`);
    assert.deepEqual(await gridRows(page, "sql-grid"), [xss]);
    assert.equal(await page.locator('[data-testid="sql-grid"] img').count(), 0);
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("SQL tab: a write to the read-only demo host fails clearly and commits nothing", NEEDS_ENGINE, async () => {
  const { page, problems, close } = await openTableIn(browser, "shop.access_log", "&tab=sql");
  try {
    await page.getByTestId("sql-editor").waitFor({ timeout: 30_000 });
    await runSql(page, "SELECT COUNT(*) AS n FROM shop.access_log;");
    const [before] = await gridRows(page, "sql-grid");
    await runSql(
      page,
      "INSERT INTO shop.access_log VALUES (TIMESTAMP '2024-05-04 00:00:00', 1, '/x', 200, 5, '2024-05-04');",
    );
    assert.match(await page.getByTestId("sql-error-message").textContent(), /read-only|cannot write|not writable|does not support/i);
    await runSql(page, "SELECT COUNT(*) AS n FROM shop.access_log;");
    assert.deepEqual(await gridRows(page, "sql-grid"), [before]);
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

/** Ids of the schema versions the Schema tab lists. */
async function schemaVersions(page) {
  await page.getByTestId("schema-history").waitFor({ timeout: 30_000 });
  const ids = await page.getByTestId("schema-version").evaluateAll((els) => els.map((e) => Number(e.dataset.schema)));
  return ids.sort((a, b) => a - b);
}

test("DDL in the SQL tab on a writable warehouse (an OPFS copy of the demo lake): ALTER commits a new schema; a malformed ALTER commits nothing", NEEDS_ENGINE, async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  try {
    await page.goto(new URL("./", BASE).href);
    await copyDemoToOpfs(page);
    assert.match(await page.getByTestId("connection-status").textContent(), /^opfs:\/\/my-lake\//);

    await page.goto(new URL("?warehouse=opfs://my-lake&table=shop.customers&tab=schema", BASE).href);
    const before = await schemaVersions(page);
    assert.ok(before.length >= 1);

    await page.getByTestId("tab-sql").click();
    await runSql(page, "ALTER TABLE shop.customers ADD (loyalty INT COMMENT 'points'");
    const error = page.getByTestId("sql-error");
    assert.match(await error.textContent(), /Error at line 1, column \d+/);
    assert.match(await error.textContent(), /Nothing was committed/);
    await page.getByTestId("tab-schema").click();
    assert.deepEqual(await schemaVersions(page), before, "a failed ALTER adds no schema version");

    await page.getByTestId("tab-sql").click();
    await runSql(page, "ALTER TABLE shop.customers ADD loyalty INT COMMENT 'points';");
    assert.match(await page.getByTestId("sql-info").textContent(), /\S/);
    await page.getByTestId("tab-schema").click();
    const after = await schemaVersions(page);
    assert.deepEqual(after, [...before, Math.max(...before) + 1]);
    const fields = await page.getByTestId("schema-fields").textContent();
    assert.match(fields, /loyalty/);
    assert.match(fields, /points/);
    await shot(page, "18-sql-alter-opfs");

    // the new column is readable at once, NULL for the existing rows
    await page.getByTestId("tab-sql").click();
    await runSql(page, "SELECT COUNT(*) AS n, COUNT(loyalty) AS with_points FROM shop.customers;");
    const [row] = await gridRows(page, "sql-grid");
    assert.match(row, /^\d+\|0$/);
  } finally {
    await context.close();
  }
});

test("SQL tab while scripts/run-demo.sh builds the engine: Run says so, and picks the engine up on the next run without a reload", NEEDS_ENGINE, async () => {
  const { page, close } = await openTableIn(browser, "shop.orders", "&tab=sql");
  try {
    // The engine is not there yet (the host answers its loader with the app's page, as
    // run-demo.sh's host does), and run-demo.sh's status file says it is being built.
    const missing = /lakescope-sql-worker_loader\.js$/;
    const page404 = (route) => route.fulfill({ status: 200, contentType: "text/html", body: "<!doctype html><html></html>" });
    await page.route(missing, page404);
    await page.route(/lakescope-sql-worker\.status\.json$/, (route) =>
      route.fulfill({ status: 200, contentType: "application/json", body: '{"state":"building","started":"2026-12-03T10:00:00Z","log":"target/sql-engine-release.log"}' }),
    );
    await page.getByTestId("sql-editor").waitFor({ timeout: 30_000 });
    await runSql(page, "SELECT COUNT(*) AS n FROM shop.orders;");
    const failure = page.getByTestId("sql-failure");
    assert.match(await failure.textContent(), /still being built: scripts\/run-demo\.sh started its build at 2026-12-03T10:00:00Z.*target\/sql-engine-release\.log.*no reload needed/);
    // The engine is in place now: the next run loads it, in the same page.
    await page.unroute(missing);
    await runSql(page, "SELECT COUNT(*) AS n FROM shop.orders;");
    assert.equal(await page.getByTestId("sql-failure").count(), 0);
    assert.equal((await gridRows(page, "sql-grid")).length, 1);
  } finally {
    await close();
  }
});

test(
  "SQL tab without the engine in dist/: Run says what is missing and how to add it",
  async () => {
    const { page, close } = await openTableIn(browser, "shop.orders", "&tab=sql");
    try {
      // A dist/ without the engine: its loader is not there (as a static host answers).
      await page.route(/lakescope-sql-worker_loader\.js$/, (route) => route.fulfill({ status: 404, body: "not found" }));
      await page.getByTestId("sql-editor").waitFor({ timeout: 30_000 });
      await page.getByTestId("sql-run").click();
      const failure = page.getByTestId("sql-failure");
      await failure.waitFor({ timeout: 30_000 });
      assert.match(await failure.textContent(), /could not be loaded .*build-sql-worker\.sh/);
      assert.equal(await page.getByTestId("sql-run").isDisabled(), false, "Run is usable again");
    } finally {
      await close();
    }
  },
);
