// End-to-end: the explorer's tabs on the demo lake's Iceberg tables (namespace `iceberg`, copies of
// the corpus tables mor_position_deletes and partition_evolution). Run by hand:
// LAKESCOPE_URL=http://127.0.0.1:8080/ node --test iceberg.test.js
import { test } from "node:test";
import assert from "node:assert/strict";
import { expectedIcebergLines, gridRows, icebergMetadata, normaliseLine, shot, testBrowser } from "./harness.js";

const { openPage, openTable } = testBrowser();

/** Grid rows, timestamps in the reference's form, sorted. */
async function dataLines(page, n) {
  await page.getByTestId("row-total").filter({ hasText: new RegExp(`^${n} rows$`) }).waitFor({ timeout: 30_000 });
  const rows = await gridRows(page);
  return rows.map(normaliseLine).sort();
}

async function checkTable(table, timeTravelIndex, extra) {
  const meta = icebergMetadata(table);
  const ref = `iceberg.${table}`;
  const { page, problems, close } = await openTable(ref);
  try {
    // Overview
    await page.getByTestId("format-version").waitFor({ timeout: 30_000 });
    assert.equal(await page.getByTestId("format-version").textContent(), `v${meta["format-version"]}`);
    assert.equal(await page.getByTestId("iceberg-location").textContent(), meta.location);
    assert.equal(await page.getByTestId("snapshot-count").textContent(), String(meta.snapshots.length));
    assert.equal(await page.getByTestId("spec-count").textContent(), String(meta["partition-specs"].length));
    assert.match(await page.getByTestId("last-commit").textContent(), new RegExp(`^#${meta["current-snapshot-id"]} · `));
    assert.match(await page.getByTestId("refs").textContent(), /branch main/);
    const current = expectedIcebergLines(table, meta["current-snapshot-id"]);
    await page.getByTestId("row-count").waitFor({ timeout: 30_000 });
    assert.equal(await page.getByTestId("row-count").textContent(), String(current.length));
    await shot(page, `iceberg-${table}-overview`);

    // Schema: fields of the current schema, the history lists every schema
    await page.getByTestId("tab-schema").click();
    await page.getByTestId("schema-fields").waitFor({ timeout: 20_000 });
    const schema = meta.schemas.find((s) => s["schema-id"] === meta["current-schema-id"]);
    const fields = await page
      .getByTestId("schema-fields")
      .locator("tbody tr")
      .evaluateAll((rows) => rows.map((r) => r.dataset.field));
    assert.deepEqual(fields, schema.fields.map((f) => f.name));
    assert.equal(await page.getByTestId("schema-version").count(), meta.schemas.length);
    assert.equal(await page.getByTestId("partition-spec").count(), meta["partition-specs"].length);
    await shot(page, `iceberg-${table}-schema`);

    // Snapshots: one row and one bar per snapshot; a click time-travels the Data tab
    await page.getByTestId("tab-snapshots").click();
    await page.getByTestId("snapshots-table").waitFor({ timeout: 20_000 });
    assert.equal(await page.getByTestId("snapshot-row").count(), meta.snapshots.length);
    assert.equal(await page.getByTestId("timeline-bar").count(), meta.snapshots.length);
    await shot(page, `iceberg-${table}-snapshots`);
    const past = meta.snapshots[timeTravelIndex]["snapshot-id"];
    await page.locator(`[data-testid="snapshot-row"][data-snapshot="${past}"]`).click();
    await page.waitForURL(new RegExp(`tab=data.*snapshot=${past}`));
    const want = expectedIcebergLines(table, past);
    assert.deepEqual(await dataLines(page, want.length), want);
    await shot(page, `iceberg-${table}-data-past`);
    // The Version picker lists every snapshot with the shown one selected; Columns has the fields
    const picker = page.getByTestId("version-select");
    await picker.locator(`option[value="s:${past}"]`).waitFor({ state: "attached", timeout: 20_000 });
    const options = await picker.locator("option").evaluateAll((o) => o.map((x) => x.value));
    for (const s of meta.snapshots) {
      assert.ok(options.includes(`s:${s["snapshot-id"]}`), `snapshot ${s["snapshot-id"]} in ${options}`);
    }
    assert.equal(await picker.inputValue(), `s:${past}`);
    assert.equal(await page.getByTestId("columns-menu").locator("input[data-col]").count(), schema.fields.length);

    // Files
    await page.getByTestId("tab-files").click();
    await page.getByTestId("files-table").waitFor({ timeout: 30_000 });
    await extra(page, meta);
    await shot(page, `iceberg-${table}-files`);

    // Data at the current snapshot
    await page.goto(new URL(`?warehouse=demo/warehouse/&table=${ref}&tab=data`, page.url()).href);
    assert.deepEqual(await dataLines(page, current.length), current);
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
}

test("iceberg.mor_position_deletes: overview, schema, snapshots, files with delete files, data at two snapshots", async () => {
  await checkTable("mor_position_deletes", 1, async (page, meta) => {
    const summary = meta.snapshots.find((s) => s["snapshot-id"] === meta["current-snapshot-id"]).summary;
    const files = page.getByTestId("iceberg-file");
    assert.equal(await files.and(page.locator('[data-content="c-data"]')).count(), Number(summary["total-data-files"]));
    assert.equal(await files.and(page.locator('[data-content="c-pos"]')).count(), Number(summary["total-delete-files"]));
    assert.match(await page.getByTestId("delete-file-count").textContent(), new RegExp(`^${summary["total-delete-files"]} delete files`));
    assert.ok((await page.getByTestId("iceberg-manifest").count()) >= 2);
  });
});

test("iceberg.partition_evolution: overview, schema with three specs, snapshots, files of two specs, data at two snapshots", async () => {
  await checkTable("partition_evolution", 2, async (page) => {
    const specs = await page.getByTestId("iceberg-file").evaluateAll((rows) => [...new Set(rows.map((r) => r.dataset.spec))]);
    assert.ok(specs.length >= 2, `files of ${specs} spec ids`);
    assert.ok((await page.getByTestId("files-partition").count()) > 1);
    assert.match(await page.getByTestId("spec-ids").textContent(), /spec ids: \d+, \d+/);
  });
});
