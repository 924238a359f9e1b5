// End-to-end: branches and tags in the app on the demo lake's iceberg.branched (tag t1 at schema
// 0, branch dev written with schema 1, main at schema 2; scripts/demo-lake/gen_iceberg_refs.py):
// the version picker, the Data tab at a branch and a tag, one timeline lane per branch, a diff
// main → dev. Expected rows: pyiceberg's reads (tests/e2e/expected/iceberg_branched.json). The
// Paimon table java09.pk_branch (branch folder branch/branch-dev, written by Java Paimon 0.9):
// the picker lists its branch; its Data tab reads it as Java 0.9 does.
// By hand: LAKESCOPE_URL=http://127.0.0.1:8080/ node --test refs.test.js
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { gridRows, icebergMetadata, shot, SHOWN_ERRORS, testBrowser } from "./harness.js";

const { openTable } = testBrowser();
const TABLE = "iceberg.branched";
const EXPECTED = JSON.parse(readFileSync(new URL("expected/iceberg_branched.json", import.meta.url), "utf8"));
/** Java Paimon 0.9's reads of java09.pk_branch (scripts/demo-lake/gen-paimon-branch.sh). */
const PAIMON = JSON.parse(readFileSync(new URL("expected/paimon_pk_branch.json", import.meta.url), "utf8"));

/** pyiceberg's rows of a ref as grid lines (NULL as the grid shows it), sorted. */
const lines = (ref) => EXPECTED[ref].rows.map((r) => r.map((v) => v ?? "NULL").join("|")).sort();

/** The Data tab's column names and rows (sorted) once `n` rows are shown (or an error is). */
async function shown(page, n) {
  const done = page.getByTestId("row-total").filter({ hasText: new RegExp(`^${n} rows$`) });
  await done.or(page.locator(SHOWN_ERRORS)).first().waitFor({ timeout: 30_000 });
  const errors = await page.locator(SHOWN_ERRORS).allTextContents();
  assert.deepEqual(errors, []);
  const columns = await page.getByTestId("data-grid").locator(".gh-name").allTextContents();
  return { columns, rows: (await gridRows(page)).sort() };
}

test("iceberg refs: the picker lists branch dev and tag t1; Data at tag t1 and branch dev", async () => {
  const { page, problems, close } = await openTable(TABLE, `&tab=data&tag=t1`);
  try {
    // The tag reads with its snapshot's schema (schema 0: no score, no note).
    const tag = await shown(page, EXPECTED.t1.rows.length);
    assert.deepEqual(tag.columns, EXPECTED.t1.columns);
    assert.deepEqual(tag.rows, lines("t1"));
    const picker = page.getByTestId("version-select");
    await picker.locator('option[value="b:dev"]').waitFor({ state: "attached", timeout: 20_000 });
    assert.equal(await picker.locator('option[value="t:t1"]').count(), 1);
    assert.equal(await picker.locator('option[value="b:main"]').count(), 0, "main is 'latest'");
    assert.match(await picker.locator('option[value="b:dev"]').textContent(), new RegExp(`branch dev \\(snapshot ${EXPECTED.refs.dev}\\)`));
    assert.equal(await picker.inputValue(), "t:t1");
    await shot(page, "refs-data-tag-t1");

    // The branch, picked: its rows; Java's rule reads a branch with the table's current schema.
    await picker.selectOption("b:dev");
    await page.waitForURL(/[?&]branch=dev(&|$)/);
    const dev = await shown(page, EXPECTED.dev.rows.length);
    assert.deepEqual(dev.rows.map((r) => r.split("|").slice(0, 3).join("|")).sort(), lines("dev_snapshot_schema"));
    await shot(page, "refs-data-branch-dev");
    assert.deepEqual(dev.columns, EXPECTED.dev.columns, "a branch reads with the current schema (Java's rule)");
    assert.deepEqual(dev.rows, lines("dev"));
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("iceberg refs: the timeline has one lane per branch, main first; a lane's dot time-travels, its name reads the branch", async () => {
  const meta = icebergMetadata("branched");
  const { page, problems, close } = await openTable(TABLE, "&tab=snapshots");
  try {
    await page.getByTestId("timeline").waitFor({ timeout: 30_000 });
    assert.equal(await page.getByTestId("timeline-bar").count(), meta.snapshots.length);
    const lanes = await page.getByTestId("timeline-lane").evaluateAll((gs) =>
      gs.map((g) => [g.dataset.branch, [...g.querySelectorAll("[data-testid=lane-snapshot]")].map((c) => c.dataset.snapshot)]),
    );
    // Each lane: the branch head's parent chain in the metadata, oldest first.
    const parent = new Map(meta.snapshots.map((s) => [s["snapshot-id"], s["parent-snapshot-id"]]));
    const chain = (id) => (id === undefined ? [] : [...chain(parent.get(id)), id]);
    assert.deepEqual(lanes, [
      ["main", chain(meta.refs.main["snapshot-id"])],
      ["dev", chain(meta.refs.dev["snapshot-id"])],
    ]);
    assert.match(await page.getByTestId("timeline").textContent(), /t1/);
    await shot(page, "refs-timeline-lanes");
    const head = meta.refs.dev["snapshot-id"];
    await page.locator(`[data-testid=timeline-lane][data-branch=dev] [data-snapshot="${head}"]`).click();
    await page.waitForURL(new RegExp(`tab=data.*snapshot=${head}`));
    await shown(page, EXPECTED.dev.rows.length);
    // A lane's name reads the branch.
    await page.goBack();
    await page.locator("[data-testid=timeline-lane][data-branch=dev] [data-testid=lane-label]").click();
    await page.waitForURL(/tab=data.*branch=dev/);
    await shown(page, EXPECTED.dev.rows.length);
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("iceberg refs: a diff main → branch dev shows the branch's rows as inserts and main's as deletes", async () => {
  const main = EXPECTED.refs.main;
  const { page, problems, close } = await openTable(TABLE, `&tab=diff&from=${main}&to=branch:dev`);
  try {
    const to = page.getByTestId("diff-to");
    await to.locator('option[value="branch:dev"]').waitFor({ state: "attached", timeout: 20_000 });
    assert.equal(await to.locator('option[value="tag:t1"]').count(), 1);
    assert.equal(await to.inputValue(), "branch:dev");
    await page.getByTestId("diff-grid").or(page.locator(SHOWN_ERRORS)).first().waitFor({ timeout: 30_000 });
    assert.deepEqual(await page.locator(SHOWN_ERRORS).allTextContents(), []);
    // Matched by the identifier field id; a branch reads with the table's current schema (Java's
    // SnapshotUtil.schemaFor), so both sides have main's columns: rows only on dev are inserts,
    // only on main deletes.
    const byId = (ref) => new Map(EXPECTED[ref].rows.map((r) => [r[0], r.map((v) => v ?? "NULL").join("|")]));
    const [onMain, onDev] = [byId("main"), byId("dev")];
    const inserted = [...onDev].filter(([id]) => !onMain.has(id)).map(([, row]) => `insert|${row}`);
    const deleted = [...onMain].filter(([id]) => !onDev.has(id)).map(([, row]) => `delete|${row}`);
    assert.ok(inserted.length > 0 && deleted.length > 0);
    assert.deepEqual((await gridRows(page, "diff-grid")).sort(), [...inserted, ...deleted].sort());
    assert.match(await page.getByTestId("diff-summary").textContent(), new RegExp(`\\+${inserted.length} inserted`));
    await shot(page, "refs-diff-main-dev");
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("paimon: the Data tab at a missing branch says it is not found, naming the table and the branch", async () => {
  const { page, problems, close } = await openTable("corpus.tagged", "&tab=data&branch=nope");
  try {
    const error = page.getByTestId("data-error");
    await error.waitFor({ timeout: 30_000 });
    const text = await error.textContent();
    // The engine's not-found error names the table (by its path), the branch and the branches.
    assert.match(text, /corpus\.db\/tagged/);
    assert.match(text, /branch 'nope'/);
    assert.match(text, /not found/);
    const picker = page.getByTestId("version-select");
    await picker.locator('option[value^="t:"]').first().waitFor({ state: "attached", timeout: 20_000 });
    assert.equal(await picker.locator('option[value^="b:"]').count(), 0, "corpus.tagged has no branch folder");
    await shot(page, "refs-paimon-branch-error");
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("paimon: a diff to a missing branch says it is not found, naming the table and the branch", async () => {
  const { page, problems, close } = await openTable("corpus.tagged", "&tab=diff&from=1&to=branch:nope");
  try {
    const panel = page.getByTestId("error-panel");
    await panel.waitFor({ timeout: 30_000 });
    assert.match(await panel.textContent(), /branch 'nope' of Paimon table corpus\.db\/tagged not found/);
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("paimon java09.pk_branch: the picker lists branch dev (its branch/branch-dev folder) and tag t1; the branch reads as Java 0.9 reads it", async () => {
  const { page, problems, close } = await openTable("java09.pk_branch", "&tab=data&tag=t1");
  try {
    const lines = (ref) => PAIMON[ref].rows.map((r) => r.join("|")).sort();
    const t1 = await shown(page, PAIMON.t1.rows.length);
    assert.deepEqual(t1.rows, lines("t1"));
    const picker = page.getByTestId("version-select");
    await picker.locator('option[value="b:dev"]').waitFor({ state: "attached", timeout: 20_000 });
    assert.equal(await picker.locator('option[value="b:dev"]').textContent(), "branch dev");
    await picker.selectOption("b:dev");
    await page.waitForURL(/[?&]branch=dev(&|$)/);
    const rows = page.getByTestId("row-total").filter({ hasText: new RegExp(`^${PAIMON.dev.rows.length} rows$`) });
    await rows.or(page.getByTestId("data-error")).first().waitFor({ timeout: 30_000 });
    await shot(page, "refs-paimon-branch-dev");
    // The branch's own snapshot and schema (branch/branch-dev), read as Java Paimon 0.9 reads it.
    assert.deepEqual(await page.getByTestId("data-error").allTextContents(), []);
    assert.deepEqual((await gridRows(page)).sort(), lines("dev"));
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});
