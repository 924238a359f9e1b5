// End-to-end: Paimon tables as pypaimon 2.1 writes them with today's options (issue 25), read by
// the app at every snapshot row for row as pypaimon reads them — data evolution (columns updated
// by row id and stitched, rows written with only some columns, deletes), deletion vectors with
// merge-on-read, the postpone bucket, row tracking, Paimon's row format, tags and branches, VECTOR
// columns, BLOB columns (size and a download button; bytes fetched on click), xz and bzip2 Avro
// tables (through the decoder worker). The tables are written at test time by
// crates/paimon/tests/modern/gen_modern.py (the oracle venv of scripts/oracles.sh), one warehouse
// each, served from another origin with the CORS headers a bucket would send.
// Run by hand: LAKESCOPE_URL=http://127.0.0.1:8080/ node --test paimon_modern.test.js
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort, gridRows, serveWithCors, shot, testBrowser } from "./harness.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const PYTHON = join(process.env.LAKE_TOOLS ?? join(homedir(), ".cache/lake-oracles"), "venv/bin/python");
const SKIP = process.env.LAKESCOPE_SKIP_ORACLES === "1" && !existsSync(PYTHON) && "no oracle venv (LAKESCOPE_SKIP_ORACLES=1)";
const READ = [
  "data_evolution", "data_evolution_some_rows", "data_evolution_deletes", "dv_merge_on_read", "postpone", "row_tracking",
  "row_format", "row_format_pk", "row_format_evolution",
  // VARIANT values, decoded in the app's decoder worker (kept out of the first load). (VARIANTs
  // nested in ROW/ARRAY/MAP, variant_nested, show in the grid as the JSON of the nested value,
  // not in the Arrow display pypaimon's lines use; modern_features.rs reads them through a codec.)
  "variant", "variant_shredded", "variant_row_format",
];

const { openPage } = testBrowser();
let work;
let server;
let base; // URL of the folder holding one warehouse per feature

/** Writes `m.<feature>` with pypaimon into `<work>/<feature>/` and indexes it (once); returns
 * pypaimon's rows per snapshot id (sorted `a|b|c` lines, or "!! error"). */
function generate(feature) {
  const wh = join(work, feature);
  if (!existsSync(wh)) {
    mkdirSync(wh);
    execFileSync(PYTHON, [join(ROOT, "crates/paimon/tests/modern/gen_modern.py"), wh, feature], { encoding: "utf8" });
    execFileSync("python3", [join(ROOT, "scripts/gen-index.py"), wh]);
  }
  const file = join(wh, "snapshots.json");
  return existsSync(file) ? JSON.parse(readFileSync(file, "utf8")) : {};
}

before(async () => {
  if (SKIP) return;
  work = mkdtempSync(join(tmpdir(), "lakescope-paimon-modern-"));
  const port = await freePort();
  server = await serveWithCors(work, port);
  base = `http://127.0.0.1:${port}/`;
});
after(() => {
  server?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

/** Opens `m.<feature>`'s Data tab at `snapshot`; returns its sorted lines (pypaimon's `null`
 * for the grid's NULL), or throws with the error the app shows. */
async function dataAt(page, feature, snapshot) {
  return dataOf(page, feature, `m.${feature}`, `snapshot=${snapshot}`);
}

/** Opens the Data tab of `table` in `feature`'s warehouse at the version `at` (URL parameters:
 * `snapshot=N`, `tag=T` or `branch=B`); returns what `dataAt` does. */
async function dataOf(page, feature, table, at) {
  const lake = encodeURIComponent(`${base}${feature}/`);
  await page.goto(new URL(`?warehouse=${lake}&table=${encodeURIComponent(table)}&tab=data&${at}`, page.url()).href);
  const shown = page.getByTestId("row-total").or(page.locator('[data-testid="data-error"], [data-testid="error-panel"]'));
  await shown.first().waitFor({ timeout: 60_000 });
  const error = page.locator('[data-testid="data-error"], [data-testid="error-panel"]');
  if (await error.count()) throw new Error(await error.first().textContent());
  return (await gridRows(page)).map((l) => l.split("|").map((c) => (c === "NULL" ? "null" : c)).join("|")).sort();
}

for (const feature of READ) {
  test(`${feature}: every snapshot reads in the app as pypaimon reads it`, { skip: SKIP }, async () => {
    const expected = generate(feature);
    const ids = Object.keys(expected);
    assert.ok(ids.length > 0, `${feature}: pypaimon wrote no snapshot`);
    const { page, problems, close } = await openPage("");
    try {
      for (const id of ids) {
        assert.ok(Array.isArray(expected[id]), `pypaimon cannot read ${feature} at snapshot ${id}: ${expected[id]}`);
        assert.deepEqual(await dataAt(page, feature, id), expected[id], `${feature} at snapshot ${id}`);
      }
      await shot(page, `paimon-modern-${feature}`);
      assert.deepEqual(problems, []);
    } finally {
      await close();
    }
  });
}

// VECTOR columns show as their list text (JSON, as ARRAY does); pypaimon's lines have ", ".
for (const feature of ["vector_parquet", "vector_orc", "vector_avro"]) {
  test(`${feature}: VECTOR columns read in the app as pypaimon reads them`, { skip: SKIP }, async () => {
    const expected = generate(feature);
    const { page, problems, close } = await openPage("");
    try {
      for (const [id, lines] of Object.entries(expected)) {
        assert.ok(Array.isArray(lines), `pypaimon cannot read ${feature} at snapshot ${id}: ${lines}`);
        const want = lines.map((l) => l.replace(/, /g, ",")).sort();
        assert.deepEqual(await dataAt(page, feature, id), want, `${feature} at snapshot ${id}`);
      }
      assert.deepEqual(problems, []);
    } finally {
      await close();
    }
  });
}

test("blob: BLOB cells show their size and download their bytes only when clicked", { skip: SKIP }, async () => {
  const expected = generate("blob");
  const { page, problems, close } = await openPage("");
  try {
    const blobRequests = [];
    page.on("request", (r) => r.url().endsWith(".blob") && blobRequests.push(r.headers().range ?? "whole file"));
    // pypaimon's bytes are hex: the grid shows their size (pypaimon's NULL stays null).
    const shown = (line) => line.split("|").map((c, i) => (i === 2 && c !== "null" ? `${c.length / 2} bytes download` : c)).join("|");
    for (const [id, lines] of Object.entries(expected)) {
      assert.ok(Array.isArray(lines), `pypaimon cannot read blob at snapshot ${id}: ${lines}`);
      assert.deepEqual(await dataAt(page, "blob", id), lines.map(shown).sort(), `blob at snapshot ${id}`);
    }
    // The scan read only the blob files' footers and indexes (range reads), never a whole file.
    assert.ok(blobRequests.length > 0 && blobRequests.every((r) => r.startsWith("bytes=")), blobRequests.join(", "));
    // Downloading row 3's 64 KiB value fetches exactly its bytes.
    const latest = expected[Object.keys(expected).at(-1)];
    const want = latest.find((l) => l.startsWith("3|")).split("|")[2];
    const row = page.locator('[data-testid="grid-row"]').filter({ hasText: "65536 bytes" });
    const [download] = await Promise.all([page.waitForEvent("download"), row.getByTestId("blob-download").click()]);
    const got = readFileSync(await download.path()).toString("hex");
    assert.equal(got.length, want.length);
    assert.ok(got === want, "the downloaded bytes are pypaimon's");
    await shot(page, "paimon-modern-blob");
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("tags and branches of a data-evolution table read in the app as pypaimon reads them", { skip: SKIP }, async () => {
  // gen_modern.py modern_refs: tag t1, branch dev from it with its own rows and tag d2, and a
  // column update on main; refs.json holds pypaimon's rows of each (and of dev's snapshot 1).
  const snapshots = generate("modern_refs");
  const refs = JSON.parse(readFileSync(join(work, "modern_refs", "refs.json"), "utf8"));
  // A branch's head is `branch=`; its own snapshots and tags add `snapshot=`/`tag=` to it.
  const reads = [
    ["tag:t1", "tag=t1"],
    ["branch:dev", "branch=dev"],
    ["branch:dev@1", "branch=dev&snapshot=1"],
    ["branch:dev@tag:d2", "branch=dev&tag=d2"],
  ];
  const { page, problems, close } = await openPage("");
  try {
    for (const id of Object.keys(snapshots)) {
      assert.deepEqual(await dataAt(page, "modern_refs", id), snapshots[id], `main at snapshot ${id}`);
    }
    for (const [label, at] of reads) {
      assert.ok(Array.isArray(refs[label]) && refs[label].length > 0, `pypaimon reads ${label}`);
      assert.deepEqual(await dataOf(page, "modern_refs", "m.modern_refs", at), refs[label], label);
    }
    // dev's snapshot 1 is main's tag t1 (the branch was made from it); its tag d2 has dev's rows
    assert.notDeepEqual(refs["branch:dev@1"], refs["branch:dev@tag:d2"]);
    await shot(page, "paimon-modern-refs-branch");
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("a branch's own snapshots and tags are picked in the app, deep-linked and diffed", { skip: SKIP }, async () => {
  generate("modern_refs");
  const refs = JSON.parse(readFileSync(join(work, "modern_refs", "refs.json"), "utf8"));
  const { page, problems, close } = await openPage("");
  try {
    // On branch dev the picker lists dev's head, its tag d2 and its snapshots 1 and 2.
    assert.deepEqual(await dataOf(page, "modern_refs", "m.modern_refs", "branch=dev"), refs["branch:dev"]);
    const picker = page.getByTestId("version-select");
    await picker.locator('option[value="b:dev/t:d2"]').waitFor({ state: "attached", timeout: 30_000 });
    for (const value of ["b:dev", "b:dev/s:1", "b:dev/s:2"]) {
      assert.equal(await picker.locator(`option[value="${value}"]`).count(), 1, value);
    }
    assert.equal(await picker.locator('option[value="b:dev/t:d2"]').textContent(), "dev · tag d2 (snapshot 2)");
    // Picking dev's snapshot 1 reads it and puts it in the URL; a reload of that URL reads it again.
    const total = (n) => page.getByTestId("row-total").filter({ hasText: new RegExp(`^${n} rows$`) });
    const want = refs["branch:dev@1"];
    await picker.selectOption("b:dev/s:1");
    await page.waitForURL(/[?&]branch=dev&snapshot=1(&|$)/);
    await total(want.length).or(page.getByTestId("data-error")).first().waitFor({ timeout: 30_000 });
    const lines = async () => (await gridRows(page)).map((l) => l.split("|").map((c) => (c === "NULL" ? "null" : c)).join("|")).sort();
    assert.deepEqual(await page.getByTestId("data-error").allTextContents(), []);
    assert.deepEqual(await lines(), want);
    await page.reload();
    await total(want.length).or(page.getByTestId("data-error")).first().waitFor({ timeout: 30_000 });
    assert.deepEqual(await lines(), want, "the deep link reads dev's snapshot 1 again");
    const again = page.getByTestId("version-select");
    await again.locator('option[value="b:dev/s:1"]').waitFor({ state: "attached", timeout: 30_000 });
    assert.equal(await again.inputValue(), "b:dev/s:1");
    // The Diff tab: dev's snapshot 1 → its tag d2, and main's tag t1 → dev's head (another
    // branch, the same schema): dev's own rows are inserts.
    const inserted = refs["branch:dev@tag:d2"].filter((l) => !want.includes(l)).map((l) => `insert|${l}`).sort();
    assert.ok(inserted.length > 0);
    const lake = encodeURIComponent(`${base}modern_refs/`);
    for (const [from, to] of [["branch:dev/1", "branch:dev/tag:d2"], ["tag:t1", "branch:dev"]]) {
      const q = `?warehouse=${lake}&table=m.modern_refs&tab=diff&from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`;
      await page.goto(new URL(q, page.url()).href);
      await page.getByTestId("diff-grid").or(page.getByTestId("error-panel")).first().waitFor({ timeout: 30_000 });
      assert.deepEqual(await page.getByTestId("error-panel").allTextContents(), [], `${from} → ${to}`);
      assert.deepEqual((await gridRows(page, "diff-grid")).sort(), inserted, `${from} → ${to}`);
      assert.match(await page.getByTestId("diff-summary").textContent(), new RegExp(`\\+${inserted.length} inserted`));
    }
    // the pickers list dev's own versions once a side is on dev
    await page.getByTestId("diff-from").locator('option[value="branch:dev/tag:d2"]').waitFor({ state: "attached", timeout: 30_000 });
    assert.equal(await page.getByTestId("diff-to").inputValue(), "branch:dev");
    await shot(page, "paimon-modern-refs-branch-diff");
    // main's head updated column b of two rows by row id (files holding only b, stitched): the
    // diff from tag t1 pairs each changed row (update_before/update_after), matched by _ROW_ID.
    // Expected from pypaimon's rows: the rows only in main are the afters, those only in t1 the befores.
    const only = (xs, ys) => xs.filter((l) => !ys.includes(l));
    const q = `?warehouse=${lake}&table=m.modern_refs&tab=diff&from=tag%3At1&to=latest`;
    await page.goto(new URL(q, page.url()).href);
    await page.getByTestId("diff-grid").or(page.getByTestId("error-panel")).first().waitFor({ timeout: 30_000 });
    assert.deepEqual(await page.getByTestId("error-panel").allTextContents(), [], "tag:t1 → latest");
    const changed = await gridRows(page, "diff-grid");
    const after = only(refs.latest, refs["tag:t1"]);
    assert.ok(after.length > 0);
    assert.deepEqual(changed.filter((l) => l.startsWith("update_after|")).map((l) => l.slice(13)).sort(), after);
    assert.deepEqual(changed.filter((l) => l.startsWith("update_before|")).map((l) => l.slice(14)).sort(), only(refs["tag:t1"], refs.latest));
    assert.equal(changed.length, 2 * after.length, "only update pairs");
    assert.equal(await page.getByTestId("diff-to").inputValue(), "latest", "the picker shows the linked side");
    await shot(page, "paimon-modern-refs-update-diff");
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("a BROTLI Parquet table is refused in the browser by name, saying the CLI reads it", { skip: SKIP }, async () => {
  // The app leaves parquet's BROTLI codec out of its first load (it links brotli's encoder too).
  const expected = generate("parquet_brotli");
  const latest = Object.keys(expected).at(-1);
  assert.ok(Array.isArray(expected[latest]) && expected[latest].length > 0, "pypaimon reads the BROTLI table");
  const { page, close } = await openPage("");
  try {
    await assert.rejects(dataAt(page, "parquet_brotli", latest), (e) => {
      assert.match(e.message, /compressed with BROTLI/);
      assert.match(e.message, /CLI/);
      assert.match(e.message, /bucket-0\/data-.*\.parquet/);
      return true;
    });
    await shot(page, "paimon-modern-parquet-brotli-refused");
  } finally {
    await close();
  }
});

// xz and bzip2 Avro files (data files, manifests, manifest lists) are rewritten uncompressed in
// the decoder worker, fetched on the first such file: the first load has no xz or bzip2 decoder.
for (const feature of ["avro_xz", "avro_bzip2"]) {
  test(`${feature}: every snapshot reads in the app as pypaimon reads it, through the decoder worker`, { skip: SKIP }, async () => {
    const expected = generate(feature);
    const ids = Object.keys(expected);
    assert.ok(ids.length > 0, `${feature}: pypaimon wrote no snapshot`);
    const { page, problems, close } = await openPage("");
    try {
      const worker = [];
      page.on("request", (r) => /lakescope-orc-worker/.test(r.url()) && worker.push(r.url()));
      for (const id of ids) {
        assert.ok(Array.isArray(expected[id]) && expected[id].length > 0, `pypaimon cannot read ${feature} at snapshot ${id}: ${expected[id]}`);
        assert.deepEqual(await dataAt(page, feature, id), expected[id], `${feature} at snapshot ${id}`);
      }
      assert.ok(worker.some((u) => u.endsWith("_bg.wasm")), `the decoder worker was fetched: ${worker.join(", ")}`);
      await shot(page, `paimon-modern-${feature}`);
      assert.deepEqual(problems, []);
    } finally {
      await close();
    }
  });
}
