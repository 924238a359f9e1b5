// End-to-end: the Snapshots tab's tag and rollback actions. On the static demo lake they are
// disabled with a note; on an OPFS copy of it a tag is created at an older snapshot (the Data tab
// reads the same rows through the tag as through the snapshot id), deleted, and a rollback
// (after its confirmation; a dismissed confirmation changes nothing) removes the newest snapshot.
// Run by hand: LAKESCOPE_URL=http://127.0.0.1:8080/ node --test tags.test.js
import { test } from "node:test";
import assert from "node:assert/strict";
import { copyDemoToOpfs, gridRows, shot, testBrowser } from "./harness.js";

const TABLE = "corpus.pk_dedup";

const { openPage, openTable } = testBrowser();

/** Ids of the snapshot rows the Snapshots tab lists, ascending. */
async function snapshotIds(page) {
  await page.getByTestId("snapshots-table").waitFor({ timeout: 30_000 });
  const ids = await page.getByTestId("snapshot-row").evaluateAll((rows) => rows.map((r) => Number(r.dataset.snapshot)));
  return ids.sort((a, b) => a - b);
}

/** The Data tab's rows at `version` (`snapshot=N` or `tag=name`), sorted. */
async function rowsAt(page, version) {
  await page.goto(new URL(`?warehouse=opfs://my-lake&table=${TABLE}&tab=data&${version}`, page.url()).href);
  await page.getByTestId("row-total").filter({ hasText: /^\d+ rows$/ }).waitFor({ timeout: 30_000 });
  return (await gridRows(page)).sort();
}

test("tags and rollback are disabled on the read-only demo lake, with a note saying why", async () => {
  const { page, problems, close } = await openTable(TABLE, "&tab=snapshots");
  try {
    await page.getByTestId("tag-actions").waitFor({ timeout: 30_000 });
    assert.match(await page.getByTestId("read-only-note").textContent(), /read-only/);
    await page.getByTestId("tag-name").fill("nope");
    assert.equal(await page.getByTestId("tag-create").isDisabled(), true);
    assert.equal(await page.getByTestId("rollback").isDisabled(), true);
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("on an OPFS copy: create a tag at an older snapshot, read through it, delete it, roll back", async () => {
  const { page, problems, close } = await openPage();
  try {
    await copyDemoToOpfs(page);

    await page.goto(new URL(`?warehouse=opfs://my-lake&table=${TABLE}&tab=snapshots`, page.url()).href);
    const ids = await snapshotIds(page);
    assert.ok(ids.length >= 3, `${TABLE} has several snapshots: ${ids}`);
    assert.equal(await page.getByTestId("read-only-note").count(), 0);
    const older = ids[1];

    // Create a tag at an older snapshot.
    await page.getByTestId("tag-name").fill("before-fix");
    await page.getByTestId("tag-snapshot").selectOption(String(older));
    await page.getByTestId("tag-create").click();
    await page.getByTestId("tag-status").filter({ hasText: `Tag 'before-fix' now names snapshot ${older}.` }).waitFor({ timeout: 30_000 });
    const item = page.locator('[data-testid="tag-item"][data-tag="before-fix"]');
    await item.waitFor({ timeout: 30_000 });
    assert.match(await item.textContent(), new RegExp(`snapshot ${older}`));
    // The same name again is refused with Paimon's message.
    await page.getByTestId("tag-name").fill("before-fix");
    await page.getByTestId("tag-create").click();
    await page.getByTestId("tag-status").filter({ hasText: /already exists/ }).waitFor({ timeout: 30_000 });
    await shot(page, "tags-01-created");

    // The tag reads what the snapshot reads.
    const bySnapshot = await rowsAt(page, `snapshot=${older}`);
    assert.ok(bySnapshot.length > 0);
    assert.deepEqual(await rowsAt(page, "tag=before-fix"), bySnapshot);

    // Delete it.
    await page.goto(new URL(`?warehouse=opfs://my-lake&table=${TABLE}&tab=snapshots`, page.url()).href);
    await page.locator('[data-testid="tag-item"][data-tag="before-fix"] [data-testid="tag-delete"]').click();
    await page.getByTestId("tag-status").filter({ hasText: "Tag 'before-fix' deleted." }).waitFor({ timeout: 30_000 });
    await page.locator('[data-testid="tag-item"][data-tag="before-fix"]').waitFor({ state: "detached", timeout: 30_000 });

    // A dismissed confirmation rolls nothing back; an accepted one removes the newest snapshot.
    const target = ids[ids.length - 2];
    await page.getByTestId("rollback-snapshot").selectOption(String(target));
    page.once("dialog", (d) => d.dismiss());
    await page.getByTestId("rollback").click();
    assert.deepEqual(await snapshotIds(page), ids);
    page.once("dialog", (d) => {
      assert.match(d.message(), new RegExp(`Roll the table back to snapshot ${target}\\?`));
      d.accept();
    });
    await page.getByTestId("rollback").click();
    await page.getByTestId("tag-status").filter({ hasText: `Rolled back to snapshot ${target}: removed 1 snapshot(s).` }).waitFor({ timeout: 30_000 });
    await page.waitForFunction((n) => document.querySelectorAll('[data-testid="snapshot-row"]').length === n, ids.length - 1);
    assert.deepEqual(await snapshotIds(page), ids.slice(0, -1));
    await shot(page, "tags-02-rolled-back");
    assert.deepEqual(await rowsAt(page, `snapshot=${target}`), await rowsAt(page, ""));
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});
