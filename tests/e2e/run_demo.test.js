// README command 1, literally: `bash scripts/run-demo.sh` serves the app on the demo lake, and the
// SQL engine it builds in the background, on a host that answers missing paths with the app's page.
// To stay inside CI's time, the command reuses the cargo builds of this run (CARGO_TARGET_DIR) and
// builds the unoptimised engine (LAKESCOPE_SQL_ENGINE=dev); the serving path is the user's.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { mkdirSync } from "node:fs";
import { DEMO_TABLES, freePort, gridRows, launchBrowser, SCREENS, shot } from "./harness.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));


/** Starts README command 1; resolves its output lines as they come. */
function startRunDemo(port) {
  const child = spawn("bash", ["scripts/run-demo.sh"], {
    cwd: ROOT,
    detached: true, // its own process group: stopped whole below
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, PORT: String(port), LAKESCOPE_SQL_ENGINE: "dev", LAKESCOPE_DEMO_DIST: "target/demo-dist" },
  });
  const output = [];
  const waiters = [];
  const partial = { stdout: "", stderr: "" };
  const reader = (stream) => (chunk) => {
    const lines = (partial[stream] + chunk.toString()).split("\n");
    partial[stream] = lines.pop();
    output.push(...lines);
    check();
  };
  const check = () => {
    for (const w of [...waiters]) if (output.some((l) => w.pattern.test(l))) w.resolve();
  };
  child.stdout.on("data", reader("stdout"));
  child.stderr.on("data", reader("stderr"));
  const exited = new Promise((resolve) => child.on("exit", (code) => resolve(code)));
  /** Waits for a line matching `pattern` (fails if the command exits or `ms` pass first). */
  const line = (pattern, ms) =>
    Promise.race([
      new Promise((resolve) => {
        const w = { pattern, resolve };
        waiters.push(w);
        check();
      }),
      exited.then((code) => {
        throw new Error(`run-demo.sh exited (${code}) before printing ${pattern}:\n${output.slice(-30).join("\n")}`);
      }),
      new Promise((_, reject) =>
        setTimeout(() => reject(new Error(`no ${pattern} within ${ms} ms:\n${output.slice(-30).join("\n")}`)), ms).unref(),
      ),
    ]);
  const stop = async () => {
    try {
      process.kill(-child.pid, "SIGINT");
    } catch {}
    await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000).unref())]);
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {}
  };
  return { line, stop, output };
}

test("README command 1 serves every demo table and the SQL engine, on a host with single-page-app fallback", { timeout: 1_500_000 }, async () => {
  const port = await freePort();
  const demo = startRunDemo(port);
  const base = `http://127.0.0.1:${port}/`;
  let browser;
  try {
    // The server prints its URL once it listens (run-demo.sh's "== serving" line comes before).
    await demo.line(new RegExp(`^http://127\\.0\\.0\\.1:${port}/$`), 900_000);
    // The host answers a missing path with the app's page, as trunk serve and CDN rules do.
    const missing = await fetch(new URL("demo/warehouse/corpus.db/pk_dedup/snapshot/snapshot-99", base));
    assert.equal(missing.status, 200);
    assert.match(missing.headers.get("content-type"), /text\/html/);

    mkdirSync(SCREENS, { recursive: true });
    browser = await launchBrowser();
    const context = await browser.newContext({ viewport: { width: 1280, height: 760 } });
    const page = await context.newPage();
    const problems = [];
    page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
    page.on("console", (m) => m.type() === "error" && problems.push(`console: ${m.text()}`));
    for (const [db, tables] of Object.entries(DEMO_TABLES)) {
      for (const table of tables) {
        await page.goto(`${base}?warehouse=demo/warehouse/&table=${db}.${table}`);
        await page.getByTestId("table-panel").waitFor({ timeout: 60_000 });
        await page.getByTestId("last-commit").or(page.getByTestId("error-panel")).first().waitFor({ timeout: 60_000 });
        assert.equal(await page.getByTestId("error-panel").count(), 0, `${db}.${table} overview: ${await page.getByTestId("error-panel").allTextContents()}`);
        await page.getByTestId("tab-data").click();
        const done = page.getByTestId("row-total").or(page.getByTestId("error-panel")).or(page.getByTestId("data-error"));
        await done.first().waitFor({ timeout: 60_000 });
        const errors = [...(await page.getByTestId("error-panel").allTextContents()), ...(await page.getByTestId("data-error").allTextContents())];
        assert.deepEqual(errors, [], `${db}.${table} data`);
        const total = Number((await page.getByTestId("row-total").textContent()).match(/^(\d+) rows$/)?.[1]);
        assert.ok(total > 0, `${db}.${table}: ${total} rows`);
        if (total <= 2000) assert.equal((await gridRows(page)).length, total, `${db}.${table}: the grid shows every row`);
      }
    }
    await shot(page, "run-demo-last-table");

    // The SQL console, once the engine command 1 builds is in place.
    await demo.line(/== SQL engine ready/, 900_000);
    await page.goto(`${base}?warehouse=demo/warehouse/&tab=sql`);
    await page.getByTestId("sql-editor").waitFor({ timeout: 60_000 });
    await page.getByTestId("sql-editor").fill("SELECT status, COUNT(*) AS n FROM shop.orders GROUP BY status ORDER BY status;");
    await page.getByTestId("sql-run").click();
    await page.getByTestId("sql-result").or(page.getByTestId("sql-error")).first().waitFor({ timeout: 300_000 });
    assert.equal(await page.getByTestId("sql-error").count(), 0, await page.getByTestId("sql-error").allTextContents().then((t) => t.join()));
    const rows = await gridRows(page, "sql-grid");
    assert.ok(rows.length >= 2, `GROUP BY status rows: ${rows}`);
    const counts = rows.map((r) => Number(r.split("|")[1]));
    assert.ok(counts.every((n) => Number.isInteger(n) && n > 0), `counts: ${counts}`);
    await shot(page, "run-demo-sql-console");
    assert.deepEqual(problems, []);
    await context.close();
  } finally {
    await browser?.close();
    await demo.stop();
  }
});
