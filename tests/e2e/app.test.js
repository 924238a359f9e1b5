// End-to-end: the built app (dist/ on a plain static server) in headless Chromium.
// Run by scripts/test.sh; by hand: LAKESCOPE_URL=http://127.0.0.1:8080/ node --test
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const BASE = process.env.LAKESCOPE_URL ?? "http://127.0.0.1:8080/";
const SCREENS = process.env.LAKESCOPE_SCREENS ?? fileURLToPath(new URL("../../target/e2e-screens/", import.meta.url));
const DEMO_TABLES = {
  corpus: ["append_dt", "pk_dedup", "schema_evolution", "tagged"],
  java09: ["pk_compacted", "pk_deletion_vectors"],
};

let browser;

before(async () => {
  mkdirSync(SCREENS, { recursive: true });
  // playwright-core launches with a fresh temporary user-data-dir every time.
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
});

after(async () => {
  await browser?.close();
});

/** A fresh page that records console errors, page errors and CSP violations. */
async function openPage(path = "") {
  const context = await browser.newContext({ viewport: { width: 1280, height: 760 } });
  const page = await context.newPage();
  const problems = [];
  page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
  page.on("console", (m) => {
    if (m.type() === "error") problems.push(`console: ${m.text()}`);
  });
  await page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (e) => {
      console.error(`CSP violation: ${e.violatedDirective} ${e.blockedURI}`);
    });
  });
  await page.goto(new URL(path, BASE).href);
  return { page, problems, close: () => context.close() };
}

const shot = (page, name) => page.screenshot({ path: `${SCREENS}/${name}.png` });

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
    const expected = Object.entries(DEMO_TABLES).flatMap(([db, ts]) => ts.map((t) => `${db}.${t}`));
    assert.deepEqual(await visibleTables(page), expected);
    for (const name of Object.values(DEMO_TABLES).flat()) {
      assert.ok(await page.getByRole("button", { name, exact: true }).isVisible(), `${name} is visible`);
    }
    assert.match(await page.getByTestId("connection-status").textContent(), /2 databases · 6 tables/);
    await shot(page, "01-catalog");

    await page.getByTestId("catalog-filter").fill("pk_");
    assert.deepEqual(await visibleTables(page), ["corpus.pk_dedup", "java09.pk_compacted", "java09.pk_deletion_vectors"]);
    await shot(page, "02-filter");

    await page.getByTestId("catalog-filter").fill("java09.");
    assert.deepEqual(await visibleTables(page), ["java09.pk_compacted", "java09.pk_deletion_vectors"]);

    await page.getByTestId("catalog-filter").fill("no-such-table");
    assert.match(await page.getByTestId("catalog-no-match").textContent(), /No tables match/);
    await page.getByTestId("catalog-filter").fill("");
    assert.equal((await visibleTables(page)).length, 6);
    assert.deepEqual(problems, []);
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

    await page.getByTestId("warehouse-uri").fill("s3://bucket/warehouse");
    await page.getByTestId("open-button").click();
    await page.getByText("reads s3:// warehouses only through an http(s) URL").waitFor({ timeout: 5_000 });

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
