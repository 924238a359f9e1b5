// End-to-end: the Files tab's Compact action. On the static demo lake it is disabled with a note;
// on an OPFS copy it runs `CALL sys.compact` in the SQL engine's worker: without the engine in
// dist/ it says what is missing; with it, a dismissed confirmation compacts nothing and an
// accepted one commits a COMPACT snapshot after which every bucket holds one file.
// Run by hand: LAKESCOPE_URL=http://127.0.0.1:8080/ node --test compact.test.js
import { test } from "node:test";
import assert from "node:assert/strict";
import { BASE, copyDemoToOpfs, HAS_ENGINE, shot, testBrowser } from "./harness.js";

const TABLE = "java09.pk_compacted";

const { openPage, openTable } = testBrowser();

/** The Files tab's summary line (files, size, partition×bucket, ...) on the OPFS copy. */
async function filesTab(page) {
  await page.goto(new URL(`?warehouse=opfs://my-lake&table=${TABLE}&tab=files`, page.url()).href);
  await page.getByTestId("compact-action").waitFor({ timeout: 30_000 });
  await page.getByTestId("files-summary").waitFor({ timeout: 30_000 });
  return page.getByTestId("files-summary").textContent();
}

test("Compact is disabled on the read-only demo lake, with a note saying why", async () => {
  const { page, problems, close } = await openTable(TABLE, "&tab=files");
  try {
    await page.getByTestId("compact-action").waitFor({ timeout: 30_000 });
    assert.equal(await page.getByTestId("compact").isDisabled(), true);
    assert.match(await page.getByTestId("compact-status").textContent(), /Read-only warehouse/);
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("Compact on an OPFS copy: a dismissed confirmation does nothing; then it runs (or says the engine is missing)", async () => {
  const { page, close } = await openPage();
  try {
    await copyDemoToOpfs(page);
    const before = await filesTab(page);
    page.once("dialog", (d) => d.dismiss());
    await page.getByTestId("compact").click();
    assert.equal(await page.getByTestId("compact-status").textContent(), "");

    page.once("dialog", (d) => {
      assert.match(d.message(), new RegExp(`^Compact ${TABLE.replace(".", "\\.")}\\?`));
      d.accept();
    });
    await page.getByTestId("compact").click();
    if (!HAS_ENGINE) {
      const failure = page.getByTestId("compact-status").locator(".err-inline");
      await failure.waitFor({ timeout: 30_000 });
      assert.match(await failure.textContent(), /could not be loaded .*build-sql-worker\.sh/);
      assert.equal(await page.getByTestId("compact").isDisabled(), false, "Compact is usable again");
      assert.equal(await filesTab(page), before, "nothing was committed");
      return;
    }
    const done = page.getByTestId("compact-status").locator(".ok-inline");
    await done.waitFor({ timeout: 120_000 });
    assert.match(await done.textContent(), /COMPACT/);
    await shot(page, "compact-01-done");
    await page.goto(new URL(`?warehouse=opfs://my-lake&table=${TABLE}&tab=snapshots`, page.url()).href);
    await page.getByTestId("snapshots-table").waitFor({ timeout: 30_000 });
    assert.match(await page.getByTestId("snapshot-row").first().textContent(), /COMPACT/);
    // Compacted: one file per (partition, bucket), where there were more before.
    const counts = (summary) => [/(\d+) files/, /(\d+) partition×bucket/].map((re) => Number(re.exec(summary)[1]));
    const [filesBefore, bucketsBefore] = counts(before);
    assert.ok(filesBefore > bucketsBefore, before);
    const [filesAfter, bucketsAfter] = counts(await filesTab(page));
    assert.equal(filesAfter, bucketsAfter);
  } finally {
    await close();
  }
});
