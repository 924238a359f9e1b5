// End-to-end: the app on a single-page-app host. Many static hosts (trunk serve, Netlify, CloudFront
// with 404 -> 200 /index.html, nginx `try_files $uri /index.html`) answer a missing path with
// `200 OK` and the app's index.html; the app must take such an answer for a file it reads as "not
// there". This file starts that host itself (scripts/spa-server.py: ranges as a real host, every
// missing path -> 200 index.html) on dist/ and checks that every demo table opens (only the
// probes of snapshots that may not exist meet the fallback page), that time travel and a diff
// work, and that a missing index or SQL engine is reported as on a host that answers 404.
// By hand: LAKESCOPE_DIST=/path/to/dist node --test hosts.test.js
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import {
  DEMO_TABLE_NAMES,
  SHOWN_ERRORS,
  changedRows,
  expectedLines,
  expectedRows,
  gridRows,
  normaliseLine,
  shot,
  testBrowser,
} from "./harness.js";

const DIST = process.env.LAKESCOPE_DIST ?? fileURLToPath(new URL("../../dist", import.meta.url));
const SERVER = fileURLToPath(new URL("../../scripts/spa-server.py", import.meta.url));

/** Starts scripts/spa-server.py on `folder`; resolves to its URL and a `stop()` once it listens. */
function startSpaServer(folder) {
  const child = spawn("python3", [SERVER, folder, "--quiet"], { stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (d) => (stderr += d));
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    const killer = setTimeout(() => child.kill("SIGKILL"), 5_000);
    await exited;
    clearTimeout(killer);
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      stop();
      reject(new Error(`spa-server.py printed no URL in 15 s: ${stderr}`));
    }, 15_000);
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
      const line = out.split("\n")[0];
      if (out.includes("\n")) {
        clearTimeout(timer);
        resolve({ url: line.trim(), stop });
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`spa-server.py exited (${code}): ${stderr}`));
    });
  });
}

let spa;
before(async () => {
  assert.ok(existsSync(`${DIST}/index.html`), `no index.html in ${DIST} (set LAKESCOPE_DIST)`);
  spa = await startSpaServer(DIST);
});
after(async () => {
  await spa?.stop();
});
const chrome = testBrowser({ base: () => spa.url });

/** Opens a demo table on the SPA host; also records the paths answered with the fallback page
 * (HTML for a path that is not a page). */
async function openOnSpaHost(table, params = "", { beforeGoto } = {}) {
  return openRecording((options) => chrome.openTable(table, params, options), beforeGoto);
}

/** Opens the app on the SPA host with `?warehouse=uri` (no table), recording as openOnSpaHost. */
function openWarehouse(uri) {
  return openRecording((options) => chrome.openPage(`?warehouse=${uri}`, options));
}

async function openRecording(open, beforeGoto) {
  const fallbacks = [];
  const ctx = await open({
    beforeGoto: async (p) => {
      p.on("response", (r) => {
        const path = new URL(r.url()).pathname;
        if (/text\/html/.test(r.headers()["content-type"] ?? "") && !/(\/|\.html)$/.test(path)) fallbacks.push(path);
      });
      await beforeGoto?.(p);
    },
  });
  return { ...ctx, fallbacks };
}

/** Waits until `ready` shows, or an error instead (which fails the test at once, with its text). */
async function settled(page, ready, timeout = 120_000) {
  await ready.or(page.locator(SHOWN_ERRORS)).first().waitFor({ timeout });
  assert.deepEqual(await page.locator(SHOWN_ERRORS).allTextContents(), [], "errors shown");
}

/** Waits until the Data tab has read every row; returns its count. */
async function dataRowTotal(page) {
  const total = page.getByTestId("row-total").filter({ hasText: /^\d+ rows$/ });
  await settled(page, total);
  return Number((await total.textContent()).split(" ")[0]);
}

test("the SPA host answers a missing key with 200 and index.html, and ranges with 206 (so the tests below test that host)", async () => {
  const missing = await fetch(new URL("demo/warehouse/corpus.db/pk_dedup/snapshot/snapshot-99", spa.url));
  assert.equal(missing.status, 200);
  assert.match(missing.headers.get("content-type"), /^text\/html/);
  assert.match(await missing.text(), /<!doctype html>/i);
  const ranged = await fetch(new URL("demo/warehouse/_lakescope_index.json", spa.url), { headers: { Range: "bytes=0-9" } });
  assert.equal(ranged.status, 206);
  assert.match(ranged.headers.get("content-range"), /^bytes 0-9\/\d+$/);
  assert.equal((await ranged.arrayBuffer()).byteLength, 10);
});

for (const table of DEMO_TABLE_NAMES) {
  test(`SPA host: ${table} opens on Overview and Data with no error`, async () => {
    const { page, problems, fallbacks, close } = await openOnSpaHost(table);
    try {
      // The row count is the Overview's last read (a full scan of the latest snapshot).
      await settled(page, page.getByTestId("row-count"));
      const overviewRows = Number(await page.getByTestId("row-count").textContent());
      assert.ok(overviewRows > 0, `${table} has rows`);
      await page.getByTestId("tab-data").click();
      assert.equal(await dataRowTotal(page), overviewRows, "the Data tab reads the rows the Overview counted");
      await page.getByTestId("data-grid").locator('[data-testid="grid-row"]').first().waitFor();
      if (table === "corpus.pk_dedup") await shot(page, "hosts-spa-pk_dedup-data");
      assert.deepEqual(problems, []);
      // Only probes of files that may not exist (the snapshot after the LATEST hint, the
      // hints) meet the fallback page, and they read as missing: a manifest or data file never does.
      const notProbes = fallbacks.filter((p) => !/\/snapshot\/(snapshot-\d+|LATEST|EARLIEST)$/.test(p));
      assert.deepEqual(notProbes, [], "files other than snapshot probes got the fallback page");
    } finally {
      await close();
    }
  });
}

test("SPA host: time travel to snapshot 3 of corpus.pk_dedup shows that snapshot's rows", async () => {
  const want = expectedLines("corpus.pk_dedup", 3);
  assert.notDeepEqual(want, expectedLines("corpus.pk_dedup", 5), "snapshot 3 differs from the latest");
  const { page, problems, close } = await openOnSpaHost("corpus.pk_dedup", "&tab=data&snapshot=3");
  try {
    assert.equal(await dataRowTotal(page), want.length);
    await page.getByTestId("data-status").filter({ hasText: /snapshot 3/ }).waitFor({ timeout: 30_000 });
    assert.deepEqual((await gridRows(page)).map(normaliseLine).sort(), want);
    await shot(page, "hosts-spa-time-travel");
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("SPA host: the diff of java09.pk_compacted 4 → 5 (upserts over compacted files) shows the changed rows", async () => {
  const key = (r) => `${r.dt}/${r.id}`;
  const changed = changedRows(expectedRows("java09.pk_compacted", 4), expectedRows("java09.pk_compacted", 5), key);
  assert.ok(changed.length > 0);
  const { page, problems, close } = await openOnSpaHost("java09.pk_compacted", "&tab=diff&from=4&to=5");
  try {
    await settled(page, page.getByTestId("diff-grid"));
    assert.match(await page.getByTestId("diff-summary").textContent(), new RegExp(`~${changed.length} changed`));
    const after = (await gridRows(page, "diff-grid")).filter((r) => r.startsWith("update_after|")).map((r) => r.split("|"));
    assert.deepEqual(
      after.map((c) => `${c[1]}/${c[2]}/${c[3]}`).sort(),
      changed.map((r) => `${r.dt}/${r.id}/${r.name}`).sort(),
    );
    await shot(page, "hosts-spa-diff");
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("SPA host: a warehouse without _lakescope_index.json is reported as on a 404 host, in plain words", async () => {
  const { page, problems, fallbacks, close } = await openWarehouse("no/such/warehouse/");
  try {
    const error = page.getByTestId("catalog-error");
    await error.waitFor({ timeout: 60_000 });
    const text = await error.textContent();
    assert.match(text, /Could not list no\/such\/warehouse\/: there is no _lakescope_index\.json/);
    assert.match(text, /gen-index\.py/);
    assert.doesNotMatch(text, /expected value|parse|<!doctype|<html/i, "the fallback page is not parsed as the index");
    assert.deepEqual(fallbacks, ["/no/such/warehouse/_lakescope_index.json"], "the host answered the index with its page");
    await shot(page, "hosts-spa-no-index");
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("SPA host without the SQL engine in dist/: Run says what is missing and how to add it (not a script error)", async () => {
  // The engine's files are not there: this host answers them with its page, as it does for any
  // missing path (routed, so that the test does not depend on whether this dist/ has the engine).
  const page404 = await (await fetch(new URL("no-such-file.js", spa.url))).text();
  const { page, close } = await openOnSpaHost("shop.orders", "&tab=sql", {
    beforeGoto: (p) =>
      p.route(/\/lakescope-sql-worker[^/]*$/, (route) => route.fulfill({ status: 200, contentType: "text/html; charset=utf-8", body: page404 })),
  });
  try {
    await page.getByTestId("sql-editor").waitFor({ timeout: 30_000 });
    await page.getByTestId("sql-run").click();
    const failure = page.getByTestId("sql-failure");
    await failure.waitFor({ timeout: 60_000 });
    const text = await failure.textContent();
    await shot(page, "hosts-spa-no-sql-engine");
    assert.doesNotMatch(text, /SyntaxError|Unexpected token/, "the fallback page was run as the engine's script");
    assert.match(text, /could not be loaded .*build-sql-worker\.sh/);
    assert.equal(await page.getByTestId("sql-run").isDisabled(), false, "Run is usable again");
  } finally {
    await close();
  }
});
