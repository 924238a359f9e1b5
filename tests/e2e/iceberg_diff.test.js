// End-to-end: the Diff tab on the demo lake's Iceberg tables (copies of corpus tables), checked
// against the corpus's expected rows (pyiceberg's reads of each snapshot).
// By hand: LAKESCOPE_URL=http://127.0.0.1:8080/ node --test iceberg_diff.test.js
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { SHARED, gridRows, shot, testBrowser } from "./harness.js";

const EXPECTED = process.env.LAKESCOPE_EXPECTED_ICEBERG ?? `${SHARED}corpus/expected/iceberg`;
const DEMO = fileURLToPath(new URL("../../public/demo/warehouse/", import.meta.url));

/** The demo namespace holding an Iceberg copy of `table` (`<ns>/<table>/metadata/`), if any. */
function namespaceOf(table) {
  for (const ns of readdirSync(DEMO, { withFileTypes: true })) {
    if (ns.isDirectory() && existsSync(`${DEMO}${ns.name}/${table}/metadata`)) return ns.name;
  }
  return null;
}

/** Snapshot ids in commit order, as text (they exceed JavaScript's exact integers). */
function snapshots(table) {
  const text = readFileSync(`${EXPECTED}/${table}/table.json`, "utf8");
  const count = JSON.parse(text).snapshots.length;
  const ids = [...text.slice(text.indexOf('"snapshots"')).matchAll(/"snapshot_id":\s*(\d+)/g)].map((m) => m[1]);
  return ids.slice(0, count);
}

const expectedRows = (table, id) =>
  readFileSync(`${EXPECTED}/${table}/snapshot-${id}.jsonl`, "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l));

/** Rows of `a` not cancelled by an equal row of `b` (multiset difference), by `key`. */
function minus(a, b, key) {
  const left = new Map();
  for (const r of b) left.set(key(r), (left.get(key(r)) ?? 0) + 1);
  return a.filter((r) => {
    const n = left.get(key(r)) ?? 0;
    if (n > 0) left.set(key(r), n - 1);
    return n === 0;
  });
}

const { openPage, openTable } = testBrowser();

const MOR = "mor_position_deletes";
const EVOLVED = "partition_evolution";

test("iceberg diff: position deletes of the last two snapshots by default", { skip: !namespaceOf(MOR) && `no Iceberg ${MOR} in the demo lake` }, async () => {
  const ids = snapshots(MOR);
  const [from, to] = ids.slice(-2);
  const a = expectedRows(MOR, from);
  const b = expectedRows(MOR, to);
  const key = (r) => `${r.id}|${r.v}`;
  const deleted = minus(a, b, key).map((r) => `delete|${key(r)}`).sort();
  const inserted = minus(b, a, key).map((r) => `insert|${key(r)}`).sort();
  const { page, problems, close } = await openTable(`${namespaceOf(MOR)}.${MOR}`, "&tab=diff");
  try {
    await page.getByTestId("diff-grid").waitFor({ timeout: 30_000 });
    // The pickers offer every snapshot and default to the last two.
    assert.equal(await page.getByTestId("diff-from").inputValue(), from);
    assert.equal(await page.getByTestId("diff-to").inputValue(), to);
    for (const id of ids) assert.equal(await page.locator(`[data-testid=diff-to] option[value="${id}"]`).count(), 1);
    const rows = (await gridRows(page, "diff-grid")).sort();
    assert.deepEqual(rows, [...deleted, ...inserted].sort());
    const summary = await page.getByTestId("diff-summary").textContent();
    assert.match(summary, new RegExp(`\\+${inserted.length} inserted`));
    assert.match(summary, new RegExp(`−${deleted.length} deleted`));
    assert.match(summary, /~0 changed/);
    assert.match(await page.getByTestId("diff-partitions").textContent(), new RegExp(`\\(unpartitioned\\)\\s*${inserted.length}\\s*${deleted.length}\\s*0`));
    await shot(page, "iceberg-diff-position-deletes");

    // From the empty table: every row of the target snapshot is an insert.
    await page.getByTestId("diff-from").selectOption("0");
    await page.getByTestId("diff-summary").filter({ hasText: `+${b.length} inserted` }).waitFor({ timeout: 30_000 });
    const all = (await gridRows(page, "diff-grid")).sort();
    assert.deepEqual(all, b.map((r) => `insert|${key(r)}`).sort());
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("iceberg diff: a copy-on-write delete across partition specs, counted per partition", { skip: !namespaceOf(EVOLVED) && `no Iceberg ${EVOLVED} in the demo lake` }, async () => {
  const ids = snapshots(EVOLVED);
  // The first snapshot of the DELETE WHERE cat = 'a' (files of three specs rewritten).
  const [from, to] = [ids[2], ids[3]];
  const a = expectedRows(EVOLVED, from);
  const b = expectedRows(EVOLVED, to);
  const key = (r) => `${r.id}|${r.cat}`;
  const deleted = minus(a, b, key).map((r) => `delete|${key(r)}`);
  const inserted = minus(b, a, key).map((r) => `insert|${key(r)}`);
  assert.ok(deleted.length > 0);
  const { page, problems, close } = await openTable(`${namespaceOf(EVOLVED)}.${EVOLVED}`, `&tab=diff&from=${from}&to=${to}`);
  try {
    await page.getByTestId("diff-grid").waitFor({ timeout: 30_000 });
    const rows = (await gridRows(page, "diff-grid")).map((r) => r.split("|").slice(0, 3).join("|"));
    assert.deepEqual(rows.sort(), [...deleted, ...inserted].sort());
    // Partitions are named by their values; the counts add up to the rows.
    const parts = await page.getByTestId("diff-partition").evaluateAll((trs) =>
      trs.map((tr) => [
        [...tr.querySelectorAll("[data-testid=diff-partition-value]")].map((v) => v.textContent),
        ...[...tr.querySelectorAll("td")].slice(1).map((td) => td.textContent),
      ]),
    );
    assert.ok(parts.length > 0);
    // one line per partition field, e.g. ts_month=2024-01 / cat=a
    for (const [values] of parts) {
      assert.ok(values.length > 0);
      for (const v of values) assert.match(v, /^[a-z_]+=\S+$/);
    }
    assert.ok(parts.some(([values]) => values.some((v) => /^ts_month=\d{4}-\d{2}$/.test(v))));
    assert.equal(parts.reduce((n, p) => n + Number(p[2]), 0), deleted.length);
    assert.equal(parts.reduce((n, p) => n + Number(p[1]), 0), inserted.length);
    await shot(page, "iceberg-diff-partition-evolution");
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});
