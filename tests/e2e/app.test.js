// End-to-end: the built app (dist/ on a plain static server) in headless Chromium.
// Run by scripts/test.sh; by hand: LAKESCOPE_URL=http://127.0.0.1:8080/ node --test
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { BASE, DEMO_TABLES, DEMO_TABLE_NAMES, changedRows, expectedRows, gridRows, holdRequests, shot, testBrowser } from "./harness.js";

const XSS = "<img src=x onerror=alert(1)>";

const { openPage, openTable } = testBrowser();



async function visibleTables(page) {
  return page.locator('[data-testid="table-node"]:visible').evaluateAll((els) => els.map((e) => e.dataset.table));
}

test("the demo lake's databases and tables are listed, and the filter narrows them", async () => {
  const { page, problems, close } = await openPage();
  try {
    await page.getByTestId("catalog-tree").waitFor({ timeout: 30_000 });
    assert.equal(await page.getByTestId("brand").textContent(), "lakescope");
    assert.match(await page.getByTestId("version").textContent(), /^v\d+\.\d+\.\d+/);
    assert.equal(await page.getByTestId("warehouse-uri").inputValue(), "demo/warehouse/");

    const databases = await page
      .getByTestId("database-node")
      .evaluateAll((els) => els.map((e) => e.dataset.database));
    assert.deepEqual(databases, Object.keys(DEMO_TABLES));
    const expected = DEMO_TABLE_NAMES;
    assert.deepEqual(await visibleTables(page), expected);
    for (const name of Object.values(DEMO_TABLES).flat()) {
      assert.ok(await page.getByRole("button", { name, exact: true }).isVisible(), `${name} is visible`);
    }
    assert.match(await page.getByTestId("connection-status").textContent(), /5 databases · 17 tables/);
    await shot(page, "01-catalog");

    await page.getByTestId("catalog-filter").fill("pk_");
    assert.deepEqual(await visibleTables(page), ["corpus.pk_dedup", "java09.pk_branch", "java09.pk_compacted", "java09.pk_deletion_vectors"]);
    await shot(page, "02-filter");

    await page.getByTestId("catalog-filter").fill("java09.");
    assert.deepEqual(await visibleTables(page), ["java09.pk_branch", "java09.pk_compacted", "java09.pk_deletion_vectors"]);

    await page.getByTestId("catalog-filter").fill("no-such-table");
    assert.match(await page.getByTestId("catalog-no-match").textContent(), /No tables match/);
    await page.getByTestId("catalog-filter").fill("");
    assert.equal((await visibleTables(page)).length, expected.length);
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("a link to a warehouse reads its index once: the boot script's early request, taken by the app", async () => {
  const indexRequests = [];
  const { page, problems, close } = await openPage("?warehouse=demo/warehouse/&table=demo.events&tab=data", {
    beforeGoto: (p) => p.on("request", (r) => r.url().endsWith("/_lakescope_index.json") && indexRequests.push(r.url())),
  });
  try {
    await page.getByTestId("data-grid").locator('[data-testid="grid-row"]').first().waitFor({ timeout: 30_000 });
    // every early request the boot script sent for this table was taken by the app's reads
    assert.deepEqual(await page.evaluate(() => [...globalThis.lakescopeEarlyFetches.keys()]), []);
    assert.equal(indexRequests.length, 1, indexRequests.join(", "));
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("a link whose warehouse URL is malformed still starts the app, which says what is wrong", async () => {
  // boot.js requests a linked warehouse's index early: a URL it cannot parse must not stop the app.
  const { page, problems, close } = await openPage(`?warehouse=${encodeURIComponent("http://[bad")}&table=demo.events`);
  try {
    const error = page.getByTestId("catalog-error");
    await error.waitFor({ timeout: 30_000 });
    assert.match(await error.textContent(), /http:\/\/\[bad/);
    assert.equal(await page.evaluate(() => globalThis.lakescopeEarlyFetches), undefined);
    assert.deepEqual(problems.filter((p) => !/^console: /.test(p)), []);
  } finally {
    await close();
  }
});

test("opening a warehouse that is not there says why in plain words", async () => {
  const { page, problems, close } = await openPage();
  try {
    await page.getByTestId("catalog-tree").waitFor({ timeout: 30_000 });
    await page.getByTestId("warehouse-uri").fill("no/such/warehouse/");
    await page.getByTestId("open-button").click();
    const error = page.getByTestId("catalog-error");
    await error.waitFor({ timeout: 15_000 });
    const text = await error.textContent();
    assert.match(text, /Could not list no\/such\/warehouse\//);
    assert.match(text, /_lakescope_index\.json/);
    assert.equal(await page.getByTestId("table-node").count(), 0);
    await shot(page, "03-bad-uri");
    // The only console noise allowed is the browser's own note about the 404.
    assert.deepEqual(problems.filter((p) => !/404/.test(p)), []);

    // s3:// and opfs:// open (tests/e2e/storage.test.js); other schemes are explained.
    await page.getByTestId("warehouse-uri").fill("ftp://host/warehouse");
    await page.getByTestId("open-button").click();
    await page.getByText("use http(s)://, s3://BUCKET/PREFIX or opfs://NAME").waitFor({ timeout: 5_000 });

    await page.getByTestId("demo-button").click();
    await page.getByTestId("catalog-tree").waitFor({ timeout: 15_000 });
  } finally {
    await close();
  }
});

test("clicking a table shows its panel, and the warehouse is kept in the page URL", async () => {
  const { page, problems, close } = await openPage("?warehouse=demo/warehouse/");
  try {
    await page.getByTestId("catalog-tree").waitFor({ timeout: 30_000 });
    await page.locator('[data-table="corpus.pk_dedup"]').click();
    const panel = page.getByTestId("table-panel");
    await panel.waitFor();
    assert.equal(await page.getByTestId("table-title").textContent(), "pk_dedup");
    assert.equal(await page.getByTestId("table-path").textContent(), "corpus.db/pk_dedup");
    assert.match(await panel.textContent(), /demo\/warehouse\/corpus\.db\/pk_dedup\//);
    assert.match(await page.locator('[data-table="corpus.pk_dedup"]').getAttribute("class"), /selected/);
    await shot(page, "04-table");

    await page.locator('[data-table="java09.pk_deletion_vectors"]').click();
    assert.equal(await page.getByTestId("table-title").textContent(), "pk_deletion_vectors");
    assert.match(page.url(), /\?warehouse=demo%2Fwarehouse%2F/);
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

// ---------------------------------------------------------------------------------------------
// The table page

/** Opens a table page by URL and waits for the tab body. */

/** Texts of the rendered grid rows (cells joined by |, without the row number). */

async function waitRows(page, n) {
  await page.getByTestId("row-total").filter({ hasText: new RegExp(`^${n} rows$`) }).waitFor({ timeout: 30_000 });
}

test("overview of a primary-key table: keys, buckets, merge engine, rows, files, last commit, badges", async () => {
  const { page, problems, close } = await openTable("corpus.pk_dedup");
  try {
    await page.getByTestId("overview").waitFor();
    await page.getByTestId("primary-key").waitFor({ timeout: 20_000 });
    assert.equal(await page.getByTestId("primary-key").textContent(), "dt, id");
    assert.equal(await page.getByTestId("partition-keys").textContent(), "dt");
    assert.equal(await page.getByTestId("bucket-mode").textContent(), "fixed, 2 buckets");
    assert.equal(await page.getByTestId("merge-engine").textContent(), "deduplicate");
    assert.equal(await page.getByTestId("file-format").textContent(), "parquet");
    const rows = expectedRows("corpus.pk_dedup", 5).length;
    await page.getByTestId("row-count").waitFor({ timeout: 30_000 });
    assert.equal(await page.getByTestId("row-count").textContent(), String(rows));
    assert.match(await page.getByTestId("file-stats").textContent(), /^15 files · [\d.]+ KiB · 40 rows in files$/);
    assert.match(await page.getByTestId("last-commit").textContent(), /^#5 · \d{4}-\d\d-\d\d .* · Append · by /);
    // options: set ones highlighted, defaults listed
    assert.equal(await page.locator('[data-option="bucket"]').getAttribute("class"), "non-default");
    assert.match(await page.locator('[data-option="merge-engine"]').textContent(), /deduplicate/);
    // kind badges in the tree
    const badge = (t) => page.locator(`[data-table="${t}"] [data-testid="kind-badge"]`);
    await badge("corpus.append_dt").waitFor({ timeout: 20_000 });
    assert.equal(await badge("corpus.pk_dedup").textContent(), "pk·dedup");
    assert.equal(await badge("corpus.append_dt").textContent(), "append");
    await shot(page, "05-overview");
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

// corpus.pk_dedup as it was before its snapshot 5 was committed: the LATEST hint says 4 and
// snapshot 5 is missing (`onMissing` is called after each request for it).
const PK_DEDUP_HINT = "**/corpus.db/pk_dedup/snapshot/LATEST";
const PK_DEDUP_FIFTH = "**/corpus.db/pk_dedup/snapshot/snapshot-5";
async function beforeSnapshot5(page, onMissing = () => {}) {
  await page.route(PK_DEDUP_HINT, (route) => route.fulfill({ status: 200, body: "4" }));
  await page.route(PK_DEDUP_FIFTH, async (route) => {
    await route.fulfill({ status: 404, body: "" });
    onMissing();
  });
}
async function commitSnapshot5(page) {
  await page.unroute(PK_DEDUP_HINT);
  await page.unroute(PK_DEDUP_FIFTH);
}

/** Waits for the Data tab to show corpus.pk_dedup's rows of snapshot 5, and checks them. */
async function expectSnapshot5Rows(page) {
  const expected = expectedRows("corpus.pk_dedup", 5);
  await waitRows(page, expected.length);
  await page.getByTestId("data-status").filter({ hasText: /snapshot 5/ }).waitFor();
  const names = (await gridRows(page)).map((r) => r.split("|")[2]).sort();
  assert.deepEqual(names, expected.map((r) => r.name).sort());
}

test("a table clicked after the idle reads plans the snapshot they found while its latest is read, and shows the latest", async () => {
  const dir = fileURLToPath(new URL("../../public/demo/warehouse/corpus.db/pk_dedup/snapshot/", import.meta.url));
  const baseList = (id) => JSON.parse(readFileSync(`${dir}snapshot-${id}`, "utf8")).baseManifestList;
  const requested = [];
  // The idle read (the catalog is on screen) asks for snapshot 5 twice: beside the hint (the
  // listing names it), then as the snapshot after the hint's. It finds snapshot 4.
  let missing = 0;
  let bothMissing;
  const probed = new Promise((resolve) => (bothMissing = resolve));
  const { page, problems, close } = await openPage("", {
    beforeGoto: async (p) => {
      p.on("request", (r) => requested.push(r.url()));
      await beforeSnapshot5(p, () => ++missing === 2 && bothMissing());
    },
  });
  try {
    const read4 = page.waitForResponse((r) => r.url().endsWith("/corpus.db/pk_dedup/snapshot/snapshot-4"));
    await page.getByTestId("catalog-tree").waitFor({ timeout: 30_000 });
    await Promise.all([read4, probed]);
    // Older than 2 s, that read no longer stands for the latest (see below).
    await page.waitForTimeout(2_100);
    await commitSnapshot5(page);
    // Opening the table: its latest is read (held here), and snapshot 4 is planned meanwhile.
    const gate = await holdRequests(page, PK_DEDUP_HINT);
    const planned4 = page.waitForRequest((r) => r.url().endsWith(`/manifest/${baseList(4)}`), { timeout: 10_000 });
    await page.locator('[data-testid="table-node"][data-table="corpus.pk_dedup"]').click();
    await planned4;
    assert.ok(!requested.some((u) => u.endsWith(`/manifest/${baseList(5)}`)), "snapshot 5 is planned only once found");
    gate.open();
    await page.getByTestId("tab-data").click();
    await expectSnapshot5Rows(page);
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("a Data tab opened after a newer snapshot appeared shows it, not the snapshot the Overview showed", async () => {
  // While the Overview is shown, the table's latest snapshot is 4.
  const { page, problems, close } = await openTable("corpus.pk_dedup", "", { beforeGoto: (p) => beforeSnapshot5(p) });
  try {
    await page.getByTestId("last-commit").waitFor({ timeout: 30_000 });
    assert.match(await page.getByTestId("last-commit").textContent(), /^#4 · /);
    assert.notEqual(expectedRows("corpus.pk_dedup", 5).length, expectedRows("corpus.pk_dedup", 4).length);
    // More than 2 s later the Data tab reads the latest snapshot again.
    await commitSnapshot5(page);
    await page.waitForTimeout(2_100);
    await page.getByTestId("tab-data").click();
    await expectSnapshot5Rows(page);
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("the Data tab opened right after the Overview reuses its latest snapshot; a later visit reads it again", async () => {
  const hints = [];
  const { page, problems, close } = await openTable("corpus.pk_dedup", "", {
    beforeGoto: (p) => p.on("request", (r) => /\/corpus\.db\/pk_dedup\/snapshot\/LATEST$/.test(r.url()) && hints.push(r.url())),
  });
  try {
    await page.getByTestId("last-commit").waitFor({ timeout: 30_000 });
    await page.getByTestId("tab-data").click();
    const rows = expectedRows("corpus.pk_dedup", 5).length;
    await waitRows(page, rows);
    assert.equal(hints.length, 1, "one read of the LATEST hint for the Overview and the Data tab");
    // Older than 2 s: the next visit reads the hint again (a commit made meanwhile would show).
    await page.waitForTimeout(2_100);
    await page.getByTestId("tab-overview").click();
    await page.getByTestId("last-commit").waitFor({ timeout: 30_000 });
    await page.getByTestId("tab-data").click();
    await waitRows(page, rows);
    assert.equal(hints.length, 2);
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("schema tab: fields with ids and types, history, and a per-version diff matched by field id", async () => {
  const { page, problems, close } = await openTable("corpus.schema_evolution", "&tab=schema");
  try {
    await page.getByTestId("schema-fields").waitFor({ timeout: 20_000 });
    assert.equal(await page.getByTestId("schema-version").count(), 6);
    const fields = await page.locator("[data-testid=schema-fields] tbody tr").evaluateAll((rs) =>
      rs.map((r) => [...r.querySelectorAll("td")].slice(0, 3).map((c) => c.textContent).join(" ")),
    );
    assert.deepEqual(fields, ["0 id BIGINT", "1 full_name STRING", "2 score DOUBLE", "4 extra INT"]);
    // schema-5 re-added "extra" with a new field id
    assert.match(await page.getByTestId("schema-diff").textContent(), /added.*extra INT \(id 4\)/);
    await page.locator('[data-schema="2"]').click();
    await page.waitForURL(/schema=2/);
    assert.match(await page.getByTestId("schema-diff").textContent(), /renamed.*name → full_name \(id 1\)/);
    await page.locator('[data-schema="3"]').click();
    const retyped = await page.locator('[data-change="retyped"]').allTextContents();
    assert.deepEqual(retyped, ["retyped id: INT → BIGINT", "retyped score: FLOAT → DOUBLE"]);
    await shot(page, "06-schema");
    await page.locator('[data-schema="4"]').click();
    assert.match(await page.getByTestId("schema-diff").textContent(), /dropped.*extra STRING \(id 3\)/);
    // back goes to the previous version
    await page.goBack();
    await page.locator('[data-change="retyped"]').first().waitFor();
    assert.match(page.url(), /schema=3/);
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("snapshots tab: timeline and table; clicking a snapshot time-travels the data grid", async () => {
  const { page, problems, close } = await openTable("corpus.pk_dedup", "&tab=snapshots");
  try {
    await page.getByTestId("snapshots-table").waitFor({ timeout: 20_000 });
    assert.equal(await page.getByTestId("snapshot-row").count(), 5);
    assert.equal(await page.getByTestId("timeline-bar").count(), 5);
    // At 1280 px every column fits its card (the commit user is cut with an ellipsis).
    const [tableWidth, cardWidth] = await page
      .getByTestId("snapshots-table")
      .evaluate((t) => [t.scrollWidth, t.parentElement.clientWidth]);
    assert.ok(tableWidth <= cardWidth, `table ${tableWidth} px in a ${cardWidth} px card`);
    await shot(page, "07-snapshots");
    await page.locator('[data-testid="snapshot-row"][data-snapshot="1"]').click();
    await page.waitForURL(/tab=data.*snapshot=1/);
    await waitRows(page, 20);
    const s1 = await gridRows(page);
    assert.equal(s1.length, 20);
    assert.ok(s1.every((r) => /\|v1_\d\|/.test(r)), "snapshot 1 has only v1 names");
    // back to the snapshots tab, then a later snapshot: different rows
    await page.goBack();
    await page.getByTestId("snapshots-table").waitFor();
    await page.locator('[data-testid="timeline-bar"][data-snapshot="5"]').click();
    await page.waitForURL(/snapshot=5/);
    const expected5 = expectedRows("corpus.pk_dedup", 5);
    await waitRows(page, expected5.length);
    const s5 = await gridRows(page);
    assert.notDeepEqual(s5, s1);
    const names5 = expected5.map((r) => r.name).sort();
    const got = s5.map((r) => r.split("|")[2]).sort();
    assert.deepEqual(got, names5);
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("data tab: filter pushed down (errors under the bar), projection, audit log, time travel by tag, export", async () => {
  const { page, problems, close } = await openTable("corpus.pk_dedup", "&tab=data");
  try {
    await waitRows(page, expectedRows("corpus.pk_dedup", 5).length);
    await page.getByTestId("data-filter").fill("dt = '2024-03-02' AND qty >= 5");
    await page.getByTestId("data-filter").press("Enter");
    const want = expectedRows("corpus.pk_dedup", 5).filter((r) => r.dt === "2024-03-02" && r.qty >= 5);
    await waitRows(page, want.length);
    assert.match(page.url(), /filter=dt/);
    const rows = await gridRows(page);
    assert.deepEqual(rows.map((r) => r.split("|")[1]).sort(), want.map((r) => String(r.id)).sort());
    await shot(page, "08-data-filter");
    // a malformed filter: the error shows under the bar, in words
    await page.getByTestId("data-filter").fill("qty >= ");
    await page.getByTestId("filter-error").waitFor();
    assert.ok((await page.getByTestId("filter-error").textContent()).length > 5);
    await page.getByTestId("data-filter").fill("");
    await page.getByTestId("data-filter").press("Enter");
    // projection
    await page.getByTestId("columns-button").click();
    await page.locator('[data-col="price"]').uncheck();
    await page.locator('[data-col="updated"]').uncheck();
    await page.waitForURL(/cols=/);
    await waitRows(page, expectedRows("corpus.pk_dedup", 5).length);
    const heads = await page.locator("[data-testid=data-grid] .gh-name").allTextContents();
    assert.deepEqual(heads, ["dt", "id", "name", "qty", "op"]);
    await page.getByTestId("columns-button").click();
    // audit log adds rowkind
    await page.getByTestId("audit-toggle").check();
    await page.waitForURL(/audit=1/);
    await page.locator("[data-testid=data-grid] .gh-name", { hasText: "rowkind" }).waitFor({ timeout: 20_000 });
    // rows stream in split by split: export only once the row count has settled
    let settled = "";
    for (let same = 0, i = 0; same < 4 && i < 150; i++) {
      const now = await page.getByTestId("row-total").textContent();
      same = now === settled ? same + 1 : 0;
      settled = now;
      await page.waitForTimeout(200);
    }
    await shot(page, "09-data-audit");
    // export the current view
    const [download] = await Promise.all([page.waitForEvent("download"), page.getByTestId("export-csv").click()]);
    const csv = readFileSync(await download.path(), "utf8").trim().split("\n");
    assert.equal(csv[0], "rowkind,dt,id,name,qty,op");
    assert.equal(csv.length - 1, Number((await page.getByTestId("row-total").textContent()).split(" ")[0]));
    const [dl2] = await Promise.all([page.waitForEvent("download"), page.getByTestId("export-jsonl").click()]);
    const first = JSON.parse(readFileSync(await dl2.path(), "utf8").split("\n")[0]);
    assert.deepEqual(Object.keys(first), ["rowkind", "dt", "id", "name", "qty", "op"]);
    // `/` focuses the filter
    await page.locator("body").click({ position: { x: 5, y: 5 } });
    await page.keyboard.press("/");
    assert.equal(await page.evaluate(() => document.activeElement?.id), "data-filter");
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("data tab: time travel by tag on the tagged table changes the rows", async () => {
  const { page, problems, close } = await openTable("corpus.tagged", "&tab=data");
  try {
    const select = page.getByTestId("version-select");
    await select.locator("option[value^='t:']").first().waitFor({ state: "attached", timeout: 20_000 });
    const latest = await page.getByTestId("row-total").textContent();
    const tag = await select.locator("option[value^='t:']").first().getAttribute("value");
    await select.selectOption(tag);
    await page.waitForURL(/tag=/);
    await page.getByTestId("row-total").filter({ hasNotText: latest }).waitFor({ timeout: 20_000 });
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("the shop tables lakescope wrote itself: partial-update orders merge their partial rows", async () => {
  const { page, problems, close } = await openTable("shop.orders", "&tab=data");
  try {
    await waitRows(page, 40);
    const rows = await gridRows(page);
    // order 3 was created, paid and shipped by three partial commits (scripts/demo-lake/gen_shop.py)
    const order3 = rows.find((r) => r.startsWith("3|"));
    assert.ok(order3, `order 3 in ${rows.slice(0, 5).join(" / ")}`);
    assert.match(order3, /\|shipped\|/);
    assert.match(order3, /2024-05-03T21:30:00/);
    assert.match(order3, /2024-05-03T23:00:00/);
    await shot(page, "14-shop-orders");
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("diff tab: snapshot 1 → 2 of pk_dedup shows the known changed rows with changed cells highlighted", async () => {
  const { page, problems, close } = await openTable("corpus.pk_dedup", "&tab=diff&from=1&to=2");
  try {
    await page.getByTestId("diff-grid").waitFor({ timeout: 30_000 });
    // the known changes, from the reference reads of snapshots 1 and 2
    const key = (r) => `${r.dt}/${r.id}`;
    const changed = changedRows(expectedRows("corpus.pk_dedup", 1), expectedRows("corpus.pk_dedup", 2), key);
    assert.equal(changed.length, 5);
    assert.match(await page.getByTestId("diff-summary").textContent(), new RegExp(`~${changed.length} changed`));
    const rows = await gridRows(page, "diff-grid");
    const after = rows.filter((r) => r.startsWith("update_after|")).map((r) => r.split("|"));
    assert.deepEqual(
      after.map((c) => `${c[1]}/${c[2]}/${c[3]}`).sort(),
      changed.map((r) => `${r.dt}/${r.id}/${r.name}`).sort(),
    );
    const highlighted = await page.locator("[data-testid=diff-grid] .gc.changed").allTextContents();
    for (const r of changed) assert.ok(highlighted.includes(r.name), `${r.name} is highlighted`);
    assert.ok(!highlighted.includes("2024-03-01"), "key cells are not highlighted");
    assert.match(await page.getByTestId("diff-partitions").textContent(), /2024-03-01\s*0\s*0\s*5/);
    await shot(page, "10-diff");
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("files tab: partitions × buckets × levels, size chart and manifests", async () => {
  const { page, problems, close } = await openTable("java09.pk_compacted", "&tab=files");
  try {
    await page.getByTestId("files-table").waitFor({ timeout: 30_000 });
    assert.ok((await page.getByTestId("files-row").count()) >= 3);
    assert.ok((await page.locator("[data-testid=files-chart] rect.file").count()) >= 3);
    assert.match(await page.getByTestId("files-table").textContent(), /dt=2024-03-01/);
    assert.match(await page.getByTestId("files-summary").textContent(), /\d+ files/);
    await page.getByTestId("manifests-grid").locator('[data-testid="grid-row"]').first().waitFor();
    await shot(page, "11-files");
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("diff tab: a slow diff shows buckets done and I/O with Cancel; Run again completes it", async () => {
  let gate;
  const { page, problems, close } = await openTable("corpus.pk_dedup", "&tab=diff&from=1&to=2", {
    // Data files wait until the gate opens; metadata (planning) is not held.
    beforeGoto: async (p) => (gate = await holdRequests(p, /\/bucket-\d+\/data-[^/]+$/)),
  });
  try {
    await page.getByTestId("job-progress").waitFor({ timeout: 30_000 });
    // Planning is done: the number of differing buckets is known, none read yet.
    await page.getByTestId("job-line").filter({ hasText: /^0 of [1-9]\d* buckets · .* read in \d+ requests?/ }).waitFor();
    assert.equal(await page.getByTestId("job-bar").getAttribute("value"), "0");
    await shot(page, "diff-progress");
    await page.getByTestId("job-cancel").click();
    await page.getByTestId("job-cancelled").waitFor();
    assert.equal(await page.getByTestId("diff-grid").count(), 0);
    gate.open();
    await page.getByTestId("job-rerun").click();
    await page.getByTestId("diff-grid").waitFor({ timeout: 30_000 });
    assert.match(await page.getByTestId("diff-summary").textContent(), /~5 changed/);
    assert.equal(await page.getByTestId("job-progress").count(), 0);
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("files tab: listing shows the I/O done with Cancel; Run again lists the files", async () => {
  let gate;
  const { page, problems, close } = await openTable("java09.pk_compacted", "&tab=files", {
    beforeGoto: async (p) => (gate = await holdRequests(p, /\/manifest\/manifest-[^/]+$/)),
  });
  try {
    await page.getByTestId("job-progress").waitFor({ timeout: 30_000 });
    assert.match(await page.getByTestId("job-line").textContent(), /read in \d+ requests?/);
    await page.getByTestId("job-cancel").click();
    await page.getByTestId("job-cancelled").waitFor();
    gate.open();
    await page.getByTestId("job-rerun").click();
    await page.getByTestId("files-table").waitFor({ timeout: 30_000 });
    assert.ok((await page.getByTestId("files-row").count()) >= 3);
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("values that look like HTML render as text", async () => {
  const { page, problems, close } = await openTable("demo.xss", "&tab=data");
  let dialogs = 0;
  page.on("dialog", (d) => {
    dialogs += 1;
    d.dismiss();
  });
  try {
    await waitRows(page, 3);
    const rows = await gridRows(page);
    assert.ok(rows.includes(`1|${XSS}|plain`), rows.join("\n"));
    assert.ok(rows.includes(`2|<script>alert('x')</script>|&lt;b&gt; & "quotes"`));
    assert.equal(await page.locator("[data-testid=data-grid] img, [data-testid=data-grid] script").count(), 0);
    // A cell's whole value becomes its tooltip when the pointer is on it (cells are cut at their width).
    const cell = page.locator("[data-testid=data-grid] .gc", { hasText: "<script>" }).first();
    assert.equal(await cell.getAttribute("title"), null);
    await cell.hover();
    assert.equal(await cell.getAttribute("title"), "<script>alert('x')</script>");
    await shot(page, "12-xss");
    await page.getByTestId("tab-overview").click();
    await page.getByTestId("table-comment").waitFor({ timeout: 20_000 });
    assert.equal(await page.getByTestId("table-comment").textContent(), `table comment ${XSS}`);
    await page.getByTestId("tab-schema").click();
    await page.getByTestId("schema-fields").waitFor();
    assert.match(await page.getByTestId("schema-fields").textContent(), /<img src=x onerror=alert\(1\)>/);
    assert.equal(await page.locator("img").count(), 0);
    assert.equal(dialogs, 0);
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("the grid is virtualised: 120 000 rows, few in the DOM, scrolls to the end", async () => {
  const { page, problems, close } = await openTable("demo.events", "&tab=data");
  try {
    await waitRows(page, 120000);
    const inDom = await page.locator("[data-testid=data-grid] [data-testid=grid-row]").count();
    assert.ok(inDom > 10 && inDom < 120, `${inDom} rows in the DOM`);
    const grid = page.getByTestId("data-grid");
    await grid.evaluate((g) => (g.scrollTop = g.scrollHeight));
    await page.locator('[data-testid=grid-row][data-row="119999"]').waitFor({ timeout: 10_000 });
    assert.ok((await page.locator("[data-testid=data-grid] [data-testid=grid-row]").count()) < 120);
    await grid.evaluate((g) => (g.scrollTop = g.scrollHeight / 2));
    await page.locator('[data-testid=grid-row][data-row="60000"]').waitFor({ timeout: 10_000 });
    await shot(page, "13-virtual-grid");
    // A taller window: the grid renders rows down to its new bottom edge without a scroll.
    const lastInView = () => grid.evaluate((g) => {
      const bottom = g.getBoundingClientRect().bottom;
      const rows = [...g.querySelectorAll("[data-testid=grid-row]")].filter((r) => r.getBoundingClientRect().top < bottom);
      return Math.max(...rows.map((r) => Number(r.dataset.row)));
    });
    const [before, heightBefore] = [await lastInView(), await grid.evaluate((g) => g.clientHeight)];
    const size = page.viewportSize();
    await page.setViewportSize({ width: size.width, height: size.height + 600 });
    await page.waitForFunction((h) => {
      const g = document.querySelector("[data-testid=data-grid]");
      const bottom = g.getBoundingClientRect().bottom;
      const rows = [...g.querySelectorAll("[data-testid=grid-row]")].map((r) => r.getBoundingClientRect());
      return g.clientHeight > h + 500 && rows.some((r) => r.bottom >= bottom);
    }, heightBefore, { timeout: 10_000 });
    assert.ok((await lastInView()) > before + 20, "rows were added for the taller grid");
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("tabs are in the URL, back/forward work, and the dark theme toggles", async () => {
  const { page, problems, close } = await openTable("corpus.pk_dedup");
  try {
    await page.getByTestId("primary-key").waitFor({ timeout: 20_000 });
    await page.getByTestId("tab-schema").click();
    await page.waitForURL(/tab=schema/);
    await page.getByTestId("tab-files").click();
    await page.waitForURL(/tab=files/);
    await page.goBack();
    await page.getByTestId("schema-fields").waitFor();
    await page.goBack();
    await page.getByTestId("primary-key").waitFor();
    await page.goForward();
    await page.getByTestId("schema-fields").waitFor();
    // a broken link: a table that does not exist says so, the rest keeps working
    await page.goto(new URL("?warehouse=demo/warehouse/&table=corpus.nope", BASE).href);
    await page.getByTestId("error-panel").waitFor({ timeout: 20_000 });
    assert.match(await page.getByTestId("error-panel").textContent(), /no table corpus\.nope/);
    await page.locator('[data-table="corpus.pk_dedup"]').click();
    await page.getByTestId("primary-key").waitFor({ timeout: 20_000 });
    await page.getByTestId("theme-toggle").click();
    assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), "dark");
    await page.getByTestId("tab-snapshots").click();
    await page.getByTestId("timeline").waitFor({ timeout: 20_000 });
    await shot(page, "14-dark-snapshots");
    await page.getByTestId("tab-diff").click();
    await page.getByTestId("diff-grid").waitFor({ timeout: 20_000 });
    await shot(page, "15-dark-diff");
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});
