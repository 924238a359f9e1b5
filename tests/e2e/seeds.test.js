// End-to-end: every statement of the seeds (../shared/seeds/seed-statements.sql) in the browser.
// The script runs in the warehouse's SQL console on an empty OPFS warehouse with "Continue after
// errors"; each statement's outcome must meet its `-- expect:` comment, and the tables it wrote
// must read as the native CLI's run of the same script on a local folder reads them.
// Needs the engine in dist/ (`bash scripts/build-sql-worker.sh dist`) and the CLI
// (target/debug/lakescope, built by the native tests); skipped without them.
// By hand: LAKESCOPE_URL=http://127.0.0.1:8080/ node --test seeds.test.js
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BASE, CLI, gridRows, HAS_ENGINE, SHARED, shot, testBrowser } from "./harness.js";

const SCRIPT = readFileSync(`${SHARED}seeds/seed-statements.sql`, "utf8");
const LAKE = "opfs://seeds-e2e";

const SKIP = !HAS_ENGINE
  ? { skip: "dist/ has no SQL engine (bash scripts/build-sql-worker.sh dist)" }
  : !existsSync(CLI)
    ? { skip: `no CLI at ${CLI} (cargo build -p lakescope-cli)` }
    : {};

// Tables the script writes, read in the browser and by the CLI after the script: [catalog, table].
const TABLES = [
  ["paimon", "test_db.test"],
  ["paimon", "test_db.test_p"],
  ["paimon", "test_db.test_cast"],
  ["paimon", "test_db.test_null"],
  ["lf", "paimon_db.paimon_table"],
  ["lf", "paimon_db.paimon_table_as_pk"],
  ["lf", "paimon_db.with_default"],
  ["iceberg", "my_db.user_profile"],
  ["iceberg", "ods.order_events_keyed"],
];
const CATALOG = { paimon: "paimon_catalog", lf: "lf_paimon_catalog", iceberg: "iceberg_catalog" };

const chrome = testBrowser();

/** The `-- expect:` after every statement's `;`, in file order (the header only explains them). */
function expectations() {
  return [...SCRIPT.matchAll(/;\s*--\s*expect:\s*(ok|error|either)\b/g)].map((m) => m[1]);
}

/** Rows as sorted `a|b|c` lines: NULL and empty alike, and a timestamp's zero fraction dropped (the
 * console prints a TIMESTAMP(6) with its six digits, the CLI's CSV without them). */
const canonical = (rows) =>
  rows
    .map((r) =>
      r
        .split("|")
        .map((v) => (v === "NULL" ? "" : v.replace(/^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})\.0+$/, "$1")))
        .join("|"),
    )
    .sort();

/** The CLI's rows of `table` after running the script natively on the folder `dir`. */
function cliRows(dir, [catalog, table]) {
  const sql =
    catalog === "iceberg"
      ? `CREATE CATALOG ic WITH ('type' = 'iceberg', 'catalog-type' = 'hadoop', 'warehouse' = '${dir}/iceberg'); SELECT * FROM ic.${table}`
      : `SELECT * FROM ${table}`;
  const args = catalog === "iceberg" ? ["sql", "--format", "csv", "-e", sql] : ["sql", "--warehouse", `${dir}/${catalog}`, "--format", "csv", "-e", sql];
  const lines = execFileSync(CLI, args, { encoding: "utf8" }).trim().split("\n");
  return canonical(lines.filter((l) => !l.startsWith("[INFO]")).slice(1).map((l) => l.split(",").join("|")));
}

/** Runs the editor's text; waits until Run is enabled again and `n` results are shown. */
async function run(page, sql, n) {
  await page.getByTestId("sql-editor").fill(sql);
  await page.getByTestId("sql-run").click();
  await page.waitForFunction(
    (n) => {
      const run = document.querySelector('[data-testid="sql-run"]');
      const shown = document.querySelectorAll('[data-testid="sql-result"]').length;
      return run && !run.disabled && (shown >= n || document.querySelector('[data-testid="sql-failure"]'));
    },
    n,
    { timeout: 600_000, polling: 500 },
  );
  assert.equal(await page.getByTestId("sql-failure").count(), 0, "the run itself failed");
}

test("seeds: every statement runs in the browser's SQL console as its -- expect: says, and the tables read as the CLI's", SKIP, async () => {
  const dir = mkdtempSync(join(tmpdir(), "lakescope-seeds-"));
  const { page, problems, close } = await chrome.openPage();
  try {
    // The native run of the same script (its failures are checked by the native tests).
    const file = join(dir, "seeds.sql");
    writeFileSync(file, SCRIPT.replaceAll("${WAREHOUSE}", join(dir, "wh")));
    try {
      execFileSync(CLI, ["sql", "--keep-going", "-f", file], { stdio: "ignore" });
    } catch {
      // exit code 1: the script's expected errors
    }

    // An empty warehouse in this browser, then its SQL console.
    await page.getByTestId("catalog-tree").waitFor({ timeout: 60_000 });
    await page.getByTestId("opfs-button").click();
    await page.getByTestId("warehouse-uri").fill(LAKE);
    await page.getByTestId("opfs-create").click();
    await page.getByTestId("catalog-empty").waitFor({ timeout: 60_000 });
    await page.getByTestId("open-console").click();
    await page.getByTestId("sql-console").waitFor();
    assert.match(page.url(), /tab=sql/);
    await page.getByTestId("sql-keep-going").check();

    const want = expectations();
    assert.ok(want.length >= 140, `only ${want.length} expectations found`);
    await run(page, SCRIPT.replaceAll("${WAREHOUSE}", LAKE), want.length);
    const outcomes = await page
      .getByTestId("sql-result")
      .evaluateAll((sections) => sections.map((s) => (s.querySelector('[data-testid="sql-error"]') ? "error" : "ok")));
    assert.equal(outcomes.length, want.length, "one result per statement");
    const wrong = want
      .map((w, i) => ({ n: i + 1, want: w, got: outcomes[i] }))
      .filter(({ want, got }) => want !== "either" && want !== got);
    assert.deepEqual(wrong, [], "statements whose outcome is not the expected one");
    assert.match(await page.getByTestId("sql-summary").textContent(), new RegExp(`^${want.length} statement\\(s\\) ran, \\d+ failed\\.$`));
    await shot(page, "seeds-01-script");

    // The script's tables read as the CLI's.
    for (const entry of TABLES) {
      const [catalog, table] = entry;
      await run(page, `SELECT * FROM ${CATALOG[catalog]}.${table}`, 1);
      const got = canonical(await gridRows(page, "sql-grid").catch(() => []));
      assert.deepEqual(got, cliRows(join(dir, "wh"), entry), `${catalog} ${table}`);
    }
    await shot(page, "seeds-02-rows");

    // The warehouse's own catalog: a table created in the console appears in the catalog tree.
    await run(page, "USE CATALOG lakescope; CREATE DATABASE console_db; CREATE TABLE console_db.t (id INT, v STRING)", 3);
    await page.getByTestId("catalog-tree").filter({ hasText: "console_db" }).waitFor({ timeout: 30_000 });
    await shot(page, "seeds-03-catalog");
    assert.deepEqual(problems, []);
  } finally {
    await close();
    rmSync(dir, { recursive: true, force: true });
  }
});
