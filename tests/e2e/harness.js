// Shared pieces of the end-to-end tests: the browser, pages that record problems, grid reading.
import { mkdirSync } from "node:fs";
import { before, after } from "node:test";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

export const BASE = process.env.LAKESCOPE_URL ?? "http://127.0.0.1:8080/";
export const SCREENS =
  process.env.LAKESCOPE_SCREENS ?? fileURLToPath(new URL("../../target/e2e-screens/", import.meta.url));
/** `../shared` beside the repository (the corpus and its expected rows). */
export const SHARED = process.env.LAKESCOPE_SHARED ?? fileURLToPath(new URL("../../../shared/", import.meta.url));
/** The native CLI (built by the native tests; test.sh passes its path in LAKESCOPE_BIN). */
export const CLI =
  process.env.LAKESCOPE_BIN ?? process.env.LAKESCOPE_CLI ?? fileURLToPath(new URL("../../target/debug/lakescope", import.meta.url));

/** The demo lake's databases and tables (public/demo/warehouse), in the catalog's order. */
export const DEMO_TABLES = {
  corpus: ["append_dt", "pk_dedup", "schema_evolution", "tagged"],
  demo: ["events", "xss"],
  iceberg: ["mor_position_deletes", "partition_evolution"],
  java09: ["pk_compacted", "pk_deletion_vectors"],
  shop: ["access_log", "customers", "item_sales", "orders", "user_behavior"],
};

/** Headless Chromium with the flags this machine needs (fresh temporary profile each time). */
export function launchBrowser() {
  return chromium.launch({
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
}

/** One headless Chromium for a test file's tests: launched before them (with the screenshot
 * folder made), closed after them. The handle opens pages in it (`browser` for own contexts). */
export function testBrowser() {
  const handle = {
    browser: undefined,
    openPage: (path, options) => openPageIn(handle.browser, path, options),
    openTable: (table, params, options) => openTableIn(handle.browser, table, params, options),
  };
  before(async () => {
    mkdirSync(SCREENS, { recursive: true });
    handle.browser = await launchBrowser();
  });
  after(async () => {
    await handle.browser?.close();
  });
  return handle;
}

export const shot = (page, name) => page.screenshot({ path: `${SCREENS}/${name}.png` });

/** A fresh page that records console errors, page errors and CSP violations; `beforeGoto(page)`
 * runs before the app loads (e.g. to install request routes). */
export async function openPageIn(browser, path = "", { beforeGoto } = {}) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 760 } });
  const page = await context.newPage();
  const problems = [];
  page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
  page.on("console", (m) => {
    // The browser logs every 404 without its URL; the responses below say which ones they were.
    if (m.type() === "error" && !/status of 404/.test(m.text())) problems.push(`console: ${m.text()}`);
  });
  page.on("response", (r) => {
    // Reading a Paimon table probes snapshot-(LATEST+1) to check the LATEST hint, as Java does:
    // that 404 is expected. Any other missing file is a problem.
    if (r.status() === 404 && !/\/snapshot\/snapshot-\d+$/.test(r.url())) problems.push(`404: ${r.url()}`);
  });
  await page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (e) => {
      console.error(`CSP violation: ${e.violatedDirective} ${e.blockedURI}`);
    });
  });
  await beforeGoto?.(page);
  await page.goto(new URL(path, BASE).href);
  return { page, problems, close: () => context.close() };
}

export async function openTableIn(browser, table, params = "", options = {}) {
  const ctx = await openPageIn(browser, `?warehouse=demo/warehouse/&table=${table}${params}`, options);
  await ctx.page.getByTestId("table-panel").waitFor({ timeout: 30_000 });
  return ctx;
}

/**
 * Every row of a grid (at most `most`), in order, as `a|b|c` lines. The grid puts only the rows
 * near its view in the page, so it is scrolled through a view at a time, then back to the top.
 */
export async function gridRows(page, testid = "data-grid", { most = 5000 } = {}) {
  const grid = page.getByTestId(testid);
  if ((await grid.count()) === 0) return [];
  const count = await grid.evaluate((g) => Math.round((g.querySelector(".gcanvas")?.offsetHeight ?? 0) / 24));
  if (count > most) throw new Error(`gridRows reads grids of at most ${most} rows; ${testid} has ${count}`);
  const rows = new Map();
  for (let view = 0; ; view++) {
    const atEnd = await grid.evaluate(async (g, n) => {
      g.scrollTop = n * Math.max(24, g.clientHeight - 30);
      // The grid draws its new rows on the scroll event, before the next frames' callbacks.
      await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
      return g.scrollTop + g.clientHeight >= g.scrollHeight - 1;
    }, view);
    const shown = await grid.locator('[data-testid="grid-row"]').evaluateAll((els) =>
      els.map((r) => [Number(r.dataset.row), [...r.querySelectorAll(".gc")].map((c) => c.textContent).join("|")]));
    for (const [i, line] of shown) rows.set(i, line);
    if (atEnd) break;
  }
  await grid.evaluate(async (g) => {
    g.scrollTop = 0;
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  });
  return [...rows].sort((a, b) => a[0] - b[0]).map(([, line]) => line);
}

/** A gate for requests whose URL matches `pattern`: they wait until `open()` is called. */
export async function holdRequests(page, pattern) {
  let open;
  const opened = new Promise((resolve) => (open = resolve));
  await page.route(pattern, async (route) => {
    await opened;
    await route.continue().catch(() => {});
  });
  return { open };
}

/** On a page of the app: copies the demo lake into the browser's OPFS as opfs://my-lake. */
export async function copyDemoToOpfs(page) {
  await page.getByTestId("catalog-tree").waitFor({ timeout: 60_000 });
  await page.getByTestId("opfs-button").click();
  await page.getByTestId("opfs-copy-demo").click();
  await page.getByTestId("opfs-status").filter({ hasText: /^Copied \d+ objects/ }).waitFor({ timeout: 120_000 });
  // the copy is then opened: wait until it is connected
  await page
    .getByTestId("connection-status")
    .filter({ hasText: /^opfs:\/\/my-lake\/ · \d+ databases · \d+ tables$/ })
    .waitFor({ timeout: 60_000 });
}
