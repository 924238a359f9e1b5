// End-to-end: a second visit (issue 27 P11). The app's object cache (crates/storage/src/persistent.rs,
// the Cache API) keeps a warehouse's uniquely named files (manifest lists, manifests, data files)
// across visits; the hints, the index, snapshots and schemas are read from the host every time.
// Here a static host sends the README's caching headers for the app's assets but revalidates every
// warehouse file (tests/bench-browser/server.mjs),
// a copy of corpus.pk_dedup is served at snapshot 4, then "committed" to snapshot 5 (its snapshot
// file, LATEST and the index appear, as a writer's commit makes them appear) between two visits
// in one browser profile: the second visit must show snapshot 5's rows (never the cached 4) and
// must not ask the host again for any uniquely named file the first visit read.
// By hand: LAKESCOPE_DIST=/path/to/dist node --test revisit.test.js
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { serve } from "../bench-browser/server.mjs";
import { SHOWN_ERRORS, expectedLines, gridRows, launchBrowser, normaliseLine } from "./harness.js";

const DIST = process.env.LAKESCOPE_DIST ?? fileURLToPath(new URL("../../dist", import.meta.url));
const DEMO = fileURLToPath(new URL("../../public/demo/warehouse/corpus.db/pk_dedup", import.meta.url));
const GEN_INDEX = fileURLToPath(new URL("../../scripts/gen-index.py", import.meta.url));
const TABLE = "corpus.db/pk_dedup";
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

let warehouse, host, browser;
before(async () => {
  assert.ok(existsSync(`${DIST}/index.html`), `no index.html in ${DIST} (set LAKESCOPE_DIST)`);
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
});

/** A warehouse holding corpus.pk_dedup at snapshot 4 (snapshot-5 not written yet), served with the documented headers. */
async function tableAtSnapshot4() {
  warehouse = mkdtempSync(join(tmpdir(), "lakescope-revisit-"));
  cpSync(DEMO, join(warehouse, TABLE), { recursive: true });
  rmSync(join(warehouse, TABLE, "snapshot/snapshot-5"));
  writeFileSync(join(warehouse, TABLE, "snapshot/LATEST"), "4");
  execFileSync("python3", [GEN_INDEX, warehouse]);
  // Table files revalidated like the rest (a host not told which files never change): what the
  // app's own cache spares is then visible in the host's log.
  host = await serve({ "/": DIST, "/wh/": warehouse }, { staticHost: { warehouse: "no-cache" } });
}

/** What a commit of snapshot 5 leaves on the host: the snapshot file, the hint, the index. */
function commitSnapshot5() {
  writeFileSync(join(warehouse, TABLE, "snapshot/snapshot-5"), readFileSync(join(DEMO, "snapshot/snapshot-5")));
  writeFileSync(join(warehouse, TABLE, "snapshot/LATEST"), "5");
  execFileSync("python3", [GEN_INDEX, warehouse]);
}

async function cleanUp() {
  await host?.close();
  if (warehouse) rmSync(warehouse, { recursive: true, force: true });
}

/** Opens the deep link to the table's Data tab in `page`; returns the grid's rows once all are read. */
async function visit(page) {
  await page.goto(`${host.url}/?warehouse=wh/&table=corpus.pk_dedup&tab=data`);
  const total = page.getByTestId("row-total").filter({ hasText: /^\d+ rows$/ });
  await total.or(page.locator(SHOWN_ERRORS)).first().waitFor({ timeout: 120_000 });
  assert.deepEqual(await page.locator(SHOWN_ERRORS).allTextContents(), [], "errors shown");
  return (await gridRows(page)).map(normaliseLine).sort();
}

/** Waits until the object cache holds every file of `urls` (host paths under /wh/), whole or as a
 * byte range: the app writes them once its reads have been quiet for a while. Polled from here:
 * `page.waitForFunction` takes the promise an async predicate returns as a true value at once. */
async function cacheHolds(page, urls) {
  const paths = [...new Set(urls)].map((u) => u.slice("/wh/".length));
  const missing = () => page.evaluate(async (wanted) => {
    const cache = await caches.open("lakescope-objects-v1");
    const keys = (await cache.keys()).map((r) => decodeURIComponent(r.url));
    return wanted.filter((p) => !keys.some((k) => k.endsWith(`/${p}`) || k.includes(`/${p}?range=`)));
  }, paths);
  const deadline = Date.now() + 30_000;
  let left = await missing();
  while (left.length && Date.now() < deadline) {
    await page.waitForTimeout(200);
    left = await missing();
  }
  assert.deepEqual(left, [], "files of the first visit the object cache does not hold after 30 s");
}

/** The uniquely named warehouse files requested from the host since log entry `from`. */
const uniquelyNamed = (from) =>
  host.log.slice(from).map((e) => e.url).filter((u) => u.startsWith("/wh/") && UUID.test(u.split("/").pop()));

test("second visit: immutable files come from the object cache, and a snapshot committed in between is seen", async () => {
  const [at4, at5] = [expectedLines("corpus.pk_dedup", 4), expectedLines("corpus.pk_dedup", 5)];
  assert.notDeepEqual(at4, at5, "snapshot 5 changes the rows");
  await tableAtSnapshot4();
  const context = await browser.newContext({ viewport: { width: 1280, height: 760 } });
  try {
    const page = await context.newPage();
    const problems = [];
    page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
    assert.deepEqual(await visit(page), at4, "first visit: snapshot 4's rows");
    const firstVisit = uniquelyNamed(0);
    assert.ok(firstVisit.length >= 3, `the first visit read manifest lists, manifests and data files: ${firstVisit}`);
    await cacheHolds(page, firstVisit);

    commitSnapshot5();
    const from = host.log.length;
    assert.deepEqual(await visit(page), at5, "second visit: snapshot 5's rows, not the cached snapshot 4");
    const asked = host.log.slice(from).map((e) => e.url);
    assert.ok(asked.includes(`/wh/${TABLE}/snapshot/LATEST`), `the hint is read from the host again: ${asked}`);
    const again = uniquelyNamed(from).filter((u) => firstVisit.includes(u));
    assert.deepEqual(again, [], "no uniquely named file the first visit read is asked for again");
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
    await cleanUp();
  }
});

test("second visit with the object cache switched off (localStorage lakescope.object-cache = off) reads every file from the host", async () => {
  await tableAtSnapshot4();
  const context = await browser.newContext({ viewport: { width: 1280, height: 760 } });
  try {
    await context.addInitScript(() => localStorage.setItem("lakescope.object-cache", "off"));
    const page = await context.newPage();
    assert.deepEqual(await visit(page), expectedLines("corpus.pk_dedup", 4));
    const firstVisit = uniquelyNamed(0);
    await page.waitForTimeout(1_000);
    assert.equal(await page.evaluate(async () => (await (await caches.open("lakescope-objects-v1")).keys()).length), 0,
      "nothing kept");
    const from = host.log.length;
    await visit(page);
    assert.deepEqual(new Set(uniquelyNamed(from)), new Set(firstVisit), "the same files are read again");
  } finally {
    await context.close();
    await cleanUp();
  }
});
