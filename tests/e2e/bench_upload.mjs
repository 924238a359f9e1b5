// P7-wasm (run by hand, not by the test command): the pk_upsert workload of `scripts/bench.sh
// --write` written by the wasm build in headless Chromium through the Data tab's "Insert from
// file…" (the SQL engine's worker), into an OPFS warehouse. Each of the COMMITS commits upserts the
// KEYS keys k with k % 5 in {i, i+1 mod 5} (id, ver, qty, price, name, note, as PerfTool writepk;
// price and note from Python's random, not Java's), given as one Parquet file per commit written
// beforehand by pyarrow. Prints one JSON line: rows, seconds per commit (the worker's own timing,
// first read to commit) and in total, rows/s.
//   LAKESCOPE_URL=http://127.0.0.1:8080/ KEYS=200000 CHUNK_ROWS=100000 node bench_upload.mjs
// The dist/ must hold the SQL engine (bash scripts/build-sql-worker.sh DIST [--dev]).
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { copyDemoToOpfs, launchBrowser, openPageIn } from "./harness.js";

const KEYS = Number(process.env.KEYS ?? 2_000_000);
const COMMITS = Number(process.env.COMMITS ?? 5);
const CHUNK_ROWS = Number(process.env.CHUNK_ROWS ?? 100_000);
const PYTHON = join(process.env.LAKE_TOOLS ?? join(homedir(), ".cache/lake-oracles"), "venv/bin/python");

const GENERATE = `
import sys, random
import pyarrow as pa, pyarrow.parquet as pq
keys, commits, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
words = "alpha bravo charlie delta echo foxtrot golf hotel india juliett kilo lima mike november oscar papa quebec romeo sierra tango".split()
for c in range(commits):
    rnd = random.Random(1000 + c)
    ids = [k for k in range(keys) if k % 5 in (c % 5, (c + 1) % 5)]
    pq.write_table(pa.table({
        "id": pa.array(ids, pa.int64()),
        "ver": pa.array([c] * len(ids), pa.int32()),
        "qty": pa.array([k * 31 + c for k in ids], pa.int64()),
        "price": pa.array([rnd.random() * 1000.0 for _ in ids], pa.float64()),
        "name": [f"{words[k % 20]}-{k}" for k in ids],
        "note": [f"commit{c} {rnd.choice(words)} {rnd.choice(words)}" for _ in ids],
    }), f"{out}/commit-{c}.parquet", row_group_size=65536)
`;

const CREATE = `CREATE DATABASE IF NOT EXISTS bench;
CREATE TABLE bench.pk_upsert (id BIGINT NOT NULL, ver INT, qty BIGINT, price DOUBLE, name STRING, note STRING,
  PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket' = '4', 'file.format' = 'parquet', 'file.compression' = 'zstd',
  'write-only' = 'true', 'write-buffer-size' = '1gb', 'target-file-size' = '1gb', 'write-buffer-spillable' = 'false')`;

const work = mkdtempSync(join(tmpdir(), "lakescope-bench-upload-"));
const browser = await launchBrowser();
try {
  execFileSync(PYTHON, ["-c", GENERATE, String(KEYS), String(COMMITS), work]);
  const { page } = await openPageIn(browser);
  await copyDemoToOpfs(page);
  await page.goto(new URL("?warehouse=opfs://my-lake&table=shop.customers&tab=sql", page.url()).href);
  await page.getByTestId("sql-editor").fill(CREATE);
  await page.getByTestId("sql-run").click();
  await page.getByTestId("sql-result").or(page.getByTestId("sql-failure")).last().waitFor({ timeout: 600_000 });
  await page.waitForFunction(() => !document.querySelector('[data-testid="sql-run"]')?.disabled, null, { timeout: 600_000 });
  await page.goto(new URL("?warehouse=opfs://my-lake&table=bench.pk_upsert&tab=data", page.url()).href);
  await page.getByTestId("upload-action").waitFor({ timeout: 60_000 });
  await page.getByTestId("upload-chunk-rows").fill(String(CHUNK_ROWS));
  const seconds = [];
  let rows = 0;
  for (let c = 0; c < COMMITS; c++) {
    await page.getByTestId("upload-file").setInputFiles(join(work, `commit-${c}.parquet`));
    const done = page.getByTestId("upload-status").locator(".ok-inline, .err-inline");
    await done.waitFor({ timeout: 3_600_000 });
    const text = await done.textContent();
    const m = /^Inserted (\d+) rows .*: snapshot \d+ \((\d+\.\d) s\)\.$/.exec(text);
    if (!m) throw new Error(`commit ${c}: ${text}`);
    rows += Number(m[1]);
    seconds.push(Number(m[2]));
    // the tab reloads the grid after each commit: wait for it, then start the next upload
    await page.getByTestId("row-total").waitFor({ timeout: 600_000 });
    await page.getByTestId("upload").click({ trial: true });
  }
  const total = seconds.reduce((a, b) => a + b, 0);
  const shown = Number(/^(\d+) rows$/.exec(await page.getByTestId("row-total").textContent())[1]);
  console.log(JSON.stringify({ keys: KEYS, commits: COMMITS, chunk_rows: CHUNK_ROWS, rows, table_rows: shown, seconds, total_s: total, rows_per_s: Math.round(rows / total) }));
} finally {
  await browser.close();
  rmSync(work, { recursive: true, force: true });
}
