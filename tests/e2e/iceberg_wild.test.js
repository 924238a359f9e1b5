// End-to-end: Iceberg tables as pyiceberg 0.12 writes them today, read by the app over HTTP row for
// row as pyiceberg reads them (issue 28): gzip-compressed metadata (`NNNNN-<uuid>.gz.metadata.json`,
// found through the warehouse index as a static host serves it) and columns added later with
// `initial-default`s (a required column, several types, a field inside a struct). The tables are
// written at test time by crates/iceberg/tests/oracle/write_wild.py (the oracle venv of
// scripts/oracles.sh) and served from another origin with the CORS headers a bucket would send.
// Run by hand: LAKESCOPE_URL=http://127.0.0.1:8080/ node --test iceberg_wild.test.js
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort, gridRows, serveWithCors, shot, testBrowser } from "./harness.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const PYTHON = join(process.env.LAKE_TOOLS ?? join(homedir(), ".cache/lake-oracles"), "venv/bin/python");
const SKIP = process.env.LAKESCOPE_SKIP_ORACLES === "1" && !existsSync(PYTHON);

const { openPage } = testBrowser();
let work;
let server;
let lake; // the warehouse URL
let oracle; // what write_wild.py printed: {table: {metadata, rows, snapshots}}

before(async () => {
  if (SKIP) return;
  work = mkdtempSync(join(tmpdir(), "lakescope-iceberg-wild-"));
  const script = join(ROOT, "crates/iceberg/tests/oracle/write_wild.py");
  const printed = execFileSync(PYTHON, [script, work], { encoding: "utf8", maxBuffer: 1 << 24 });
  // Snapshot ids go beyond 2^53: kept as strings.
  oracle = JSON.parse(printed.replace(/([[,]\s*)(-?\d{16,})(?=\s*[\],])/g, '$1"$2"'));
  const wh = join(work, "wh");
  execFileSync("python3", [join(ROOT, "scripts/gen-index.py"), wh]);
  const port = await freePort();
  server = await serveWithCors(wh, port);
  lake = `http://127.0.0.1:${port}/`;
});
after(() => {
  server?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

/** pyiceberg's canonical cells (write_wild.py) as the grid shows them: null as `NULL`, zoned
 * timestamps without the `+00:00` the grid does not print. */
function expectedLines(rows) {
  return rows.map((r) => r.map((c) => (c === null ? "NULL" : c.replace(/\+00:00$/, ""))).join("|")).sort();
}

/** A grid cell in the oracle's text: timestamps as `YYYY-MM-DDTHH:MM:SS.ffffff`, a struct (JSON in
 * the grid) as `{a: 1, b: null}`. */
function normaliseCell(cell) {
  const m = /^(\d{4}-\d\d-\d\d)[ T](\d\d:\d\d:\d\d)(?:\.(\d+))?(?:Z|\+00:00| UTC)?$/.exec(cell);
  if (m) return `${m[1]}T${m[2]}.${(m[3] ?? "").padEnd(6, "0")}`;
  if (!cell.startsWith("{")) return cell;
  const struct = JSON.parse(cell);
  return `{${Object.entries(struct).map(([k, v]) => `${k}: ${v === null ? "null" : v}`).join(", ")}}`;
}
const normalise = (line) => line.split("|").map(normaliseCell).join("|");

async function dataLines(table, params = "") {
  const { page, problems, close } = await openPage(`?warehouse=${encodeURIComponent(lake)}&table=${table}&tab=data${params}`);
  try {
    const total = page.getByTestId("row-total").or(page.locator('[data-testid="data-error"], [data-testid="error-panel"]'));
    await total.first().waitFor({ timeout: 60_000 });
    const error = page.locator('[data-testid="data-error"], [data-testid="error-panel"]');
    assert.equal(await error.count(), 0, `${table}: ${await error.first().textContent().catch(() => "")}`);
    const lines = (await gridRows(page)).map(normalise).sort();
    await shot(page, `iceberg-wild-${table.replace(".", "-")}${params ? "-past" : ""}`);
    assert.deepEqual(problems, []);
    return lines;
  } finally {
    await close();
  }
}

test("gzip-compressed metadata: the app finds the .gz.metadata.json through the index and reads it like pyiceberg", { skip: SKIP && "no oracle venv (LAKESCOPE_SKIP_ORACLES=1)" }, async () => {
  const gz = oracle.gz;
  assert.match(gz.metadata, /\.gz\.metadata\.json$/);
  assert.deepEqual(await dataLines("wild.gz"), expectedLines(gz.rows));
  // The first snapshot (its metadata log entry is compressed too): the first append's two rows.
  const first = await dataLines("wild.gz", `&snapshot=${gz.snapshots[0]}`);
  assert.deepEqual(first, expectedLines(gz.rows.filter((r) => r[0] !== "3")));
});

test("initial-defaults fill the rows written before their columns existed, as pyiceberg reads them", { skip: SKIP && "no oracle venv (LAKESCOPE_SKIP_ORACLES=1)" }, async () => {
  const lines = await dataLines("wild.defaults");
  assert.deepEqual(lines, expectedLines(oracle.defaults.rows));
  // The required c_int column added with default 7 reads 7 on both old rows.
  assert.equal(lines.filter((l) => l.split("|")[2] === "7").length, 2, lines.join("\n"));
});
