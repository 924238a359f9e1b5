// End-to-end: the app on a single-page-app host. Many static hosts (trunk serve, Netlify, CloudFront
// with 404 -> 200 /index.html, nginx `try_files $uri /index.html`) answer a missing path with
// `200 OK` and the app's index.html; the reader must take such an answer for a data or metadata
// key as "not there" (e.g. the snapshot after the LATEST hint, which it probes). This file starts
// that host itself (scripts/spa-server.py: ranges as a real host, every missing path -> 200
// index.html) on dist/ and checks that every demo table opens, that time travel and a diff work.
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
async function openOnSpaHost(table, params = "") {
  const fallbacks = [];
  const ctx = await chrome.openTable(table, params, {
    beforeGoto: (p) =>
      p.on("response", (r) => {
        const path = new URL(r.url()).pathname;
        if (/text\/html/.test(r.headers()["content-type"] ?? "") && !/(\/|\.html)$/.test(path)) fallbacks.push(path);
      }),
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
      // Every demo table's reads probe at least one missing key (Paimon: the snapshot after the
      // hint; Iceberg: its version hint), which this host answered with its HTML page.
      assert.ok(fallbacks.length > 0, "the host's fallback page was met (else this test tests nothing)");
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
