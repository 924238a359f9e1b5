// End-to-end: ORC tables (Java Paimon's corpus tables) read through the lazily loaded ORC worker,
// which the explorer fetches only when the first ORC file is read.
// By hand: LAKESCOPE_URL=http://127.0.0.1:8080/ node --test orc.test.js
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync, statSync } from "node:fs";
import { SHARED, gridRows, shot, testBrowser } from "./harness.js";

const WAREHOUSE = `${SHARED}corpus/paimon/warehouse/`;
const TABLES = ["corpus.db/append_types_orc", "corpus.db/pk_dedup_orc", "corpus.db/append_dt"];
const EXPECTED = `${SHARED}corpus/expected/paimon`;
const WORKER = /lakescope-orc-worker/;

const handle = testBrowser();

function listFiles(dir, prefix) {
  return readdirSync(dir).flatMap((name) => {
    const full = `${dir}/${name}`;
    const key = `${prefix}/${name}`;
    return statSync(full).isDirectory() ? listFiles(full, key) : [{ path: key, size: statSync(full).size }];
  });
}

/** Serves three corpus tables as the warehouse `orc-lake/` (with the listing a static host gives). */
async function serveLake(page) {
  const files = TABLES.flatMap((t) => listFiles(`${WAREHOUSE}${t}`, t));
  const index = JSON.stringify({ files: files.sort((a, b) => a.path.localeCompare(b.path)) });
  await page.route(/\/orc-lake\//, async (route) => {
    const key = decodeURIComponent(new URL(route.request().url()).pathname.split("/orc-lake/")[1]);
    if (key === "_lakescope_index.json") return route.fulfill({ body: index, contentType: "application/json" });
    if (!files.some((f) => f.path === key)) return route.fulfill({ status: 404, body: "" });
    let body = readFileSync(`${WAREHOUSE}${key}`);
    const range = /bytes=(\d+)-(\d*)/.exec(route.request().headers().range ?? "");
    if (range) {
      const end = range[2] ? Number(range[2]) + 1 : body.length;
      const headers = { "content-range": `bytes ${range[1]}-${end - 1}/${body.length}` };
      return route.fulfill({ status: 206, body: body.subarray(Number(range[1]), end), headers });
    }
    return route.fulfill({ body });
  });
}

/** Expected JSON rows of a corpus table (`db.table`) at its latest snapshot. */
function expectedRows(table) {
  const [db, name] = table.split(".");
  const latest = readFileSync(`${WAREHOUSE}${db}.db/${name}/snapshot/LATEST`, "utf8").trim();
  return readFileSync(`${EXPECTED}/${table}/snapshot-${latest}.jsonl`, "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l));
}

async function openLakeTable(table) {
  const requested = [];
  const ctx = await handle.openPage(`?warehouse=orc-lake/&table=${table}&tab=data`, {
    beforeGoto: async (page) => {
      page.on("request", (r) => requested.push(r.url()));
      await serveLake(page);
    },
  });
  await ctx.page.getByTestId("table-panel").waitFor({ timeout: 30_000 });
  return { ...ctx, requested };
}

async function waitRows(page, n) {
  await page.getByTestId("row-total").filter({ hasText: new RegExp(`^${n} rows$`) }).waitFor({ timeout: 60_000 });
}

test("a Parquet table does not fetch the ORC worker", async () => {
  const { page, problems, close, requested } = await openLakeTable("corpus.append_dt");
  try {
    await waitRows(page, expectedRows("corpus.append_dt").length);
    assert.deepEqual(requested.filter((u) => WORKER.test(u)), []);
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("ORC tables read through the ORC worker: every type of append_types_orc, and a merged PK table", async () => {
  const { page, problems, close, requested } = await openLakeTable("corpus.append_types_orc");
  try {
    const want = expectedRows("corpus.append_types_orc");
    await waitRows(page, want.length);
    assert.ok(requested.some((u) => /lakescope-orc-worker_bg\.wasm/.test(u)), "the worker's wasm was fetched");
    const rows = await gridRows(page);
    for (const w of want) {
      const row = rows.find((r) => r.startsWith(`${w.id}|`));
      assert.ok(row, `row id ${w.id} in ${rows.slice(0, 3).join(" / ")}`);
      const cells = row.split("|");
      for (const key of ["s", "dt", "dec", "dec38"]) {
        assert.ok(cells.includes(w[key] ?? "NULL"), `${key}=${w[key]} in ${row}`);
      }
      // TIMESTAMP_LTZ (zone "UTC" in Arrow) renders its UTC wall time.
      if (w.tsltz) assert.ok(row.includes(w.tsltz.replace("Z", "")), `tsltz ${w.tsltz} in ${row}`);
    }
    // A filter on the TIMESTAMP_LTZ column (the app has no time zone database: "UTC" must still work).
    const later = want.filter((w) => w.tsltz && w.tsltz > "2024-06-01T08:30:00.5");
    await page.getByTestId("data-filter").fill("tsltz > '2024-06-01 08:30:00.5'");
    await page.getByTestId("data-filter").press("Enter");
    await waitRows(page, later.length);
    await shot(page, "orc-append-types");
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
  const pk = await openLakeTable("corpus.pk_dedup_orc");
  try {
    const want = expectedRows("corpus.pk_dedup_orc");
    await waitRows(pk.page, want.length);
    assert.deepEqual(pk.problems, []);
  } finally {
    await pk.close();
  }
});
