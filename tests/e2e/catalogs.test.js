// End-to-end: the app opens REST catalogs. Apache Paimon's mock REST catalog server and
// lakana-server (an Iceberg REST catalog) run here, each behind a proxy that adds the CORS
// headers a real service's CORS settings would; pypaimon 2.1 and pyiceberg 0.12 write tables
// through them (tests/oracles/rest_paimon.py, rest_iceberg.py). The page connects with a token
// (never in the URL), lists the tree, and reads every snapshot's rows as the writers read them;
// the catalogs keep their table files as file:// locations, which the test serves over HTTP (the
// form's "Table files under … are served at …"). A refused token and a catalog that sends no CORS
// headers are plain-words messages. The SQL tab commits through each catalog (INSERT, a Paimon
// UPDATE and `CALL sys.create_tag`), the table files written through an S3 API over the test's
// folder (`folderS3`), and the writers read the commits back; a revoked token is the catalog's
// 401 on the statement. Run by scripts/test.sh (layer 3); by hand:
//   cd tests/e2e && LAKESCOPE_URL=http://127.0.0.1:8081/ node --test catalogs.test.js
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn, execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from "node:fs";
import { request as httpRequest, createServer as createHttpServer } from "node:http";
import { homedir, tmpdir } from "node:os";
import { dirname, join, normalize } from "node:path";
import { fileURLToPath } from "node:url";
import { BASE, SHARED, changedRows, freePort, gridRows, normaliseCell, serveWithCors, shot, testBrowser } from "./harness.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const ORIGIN = new URL(BASE).origin;
const PYTHON = `${process.env.LAKE_TOOLS ?? `${homedir()}/.cache/lake-oracles`}/venv/bin/python`;
const PAIMON_TOKEN = "lakescope-test-token";

const { openPage } = testBrowser();
const servers = [];
let dir;
let paimon; // { url, proxy }
let iceberg; // { url, proxy, token }
let files; // URL serving `dir`

/** Starts a catalog script of ../shared/catalogs and resolves with its READY line's JSON. */
function startCatalog(script, warehouse) {
  const child = spawn("bash", [`${SHARED}catalogs/${script}`, "0", warehouse], { stdio: ["ignore", "pipe", "inherit"] });
  servers.push({ close: () => child.kill("SIGKILL") });
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (chunk) => {
      out += chunk;
      const ready = /_REST_READY (\{.*\})\n/.exec(out);
      if (ready) resolve(JSON.parse(ready[1]));
    });
    child.on("exit", (code) => reject(new Error(`${script} exited with ${code} before it was ready`)));
  });
}

/** A proxy in front of `target` that answers as a service configured for this page's origin:
 * preflights (OPTIONS) itself, and the CORS headers on every answer. With `tokenFor`, it is also
 * the OAuth2 token endpoint (`POST /v1/oauth/tokens`): `tokenFor(form, headers)` gives the access
 * token for a client-credentials form, or nothing for a `401`. */
async function corsProxy(target, tokenFor = null) {
  const port = await freePort();
  const cors = {
    "Access-Control-Allow-Origin": ORIGIN,
    "Access-Control-Allow-Methods": "GET, POST, DELETE, HEAD",
    "Access-Control-Allow-Headers": "Authorization, Content-Type",
    "Access-Control-Max-Age": "600",
    Vary: "Origin",
  };
  const srv = createHttpServer((req, res) => {
    if (req.method === "OPTIONS") return res.writeHead(204, cors).end();
    if (tokenFor && req.method === "POST" && req.url === "/v1/oauth/tokens") {
      let body = "";
      req.on("data", (chunk) => (body += chunk));
      req.on("end", () => {
        const token = tokenFor(new URLSearchParams(body), req.headers);
        const json = { ...cors, "Content-Type": "application/json" };
        if (!token) return res.writeHead(401, json).end(JSON.stringify({ error: "invalid_client", error_description: "unknown client" }));
        res.writeHead(200, json).end(JSON.stringify({ access_token: token, token_type: "bearer", expires_in: 3600 }));
      });
      return;
    }
    const to = new URL(req.url, target);
    const forward = httpRequest(to, { method: req.method, headers: { ...req.headers, host: to.host } }, (answer) => {
      res.writeHead(answer.statusCode, { ...answer.headers, ...cors });
      answer.pipe(res);
    });
    forward.on("error", (e) => (res.headersSent || res.destroyed ? res.destroy() : res.writeHead(502, cors).end(String(e))));
    // A page closed mid-request must not leave its forward open: Paimon's mock server answers one
    // connection at a time, and one waiting for a body or a reader that never comes stalls every
    // later client (a pypaimon oracle once waited 180 s for `GET /v1/config`).
    res.on("close", () => forward.destroy());
    req.pipe(forward);
  });
  await new Promise((resolve) => srv.listen(port, "127.0.0.1", resolve));
  servers.push(srv);
  return `http://127.0.0.1:${port}`;
}

/** An S3 API over the folder `root` as bucket `bucket` (path-style; requests are not signed:
 * the page connects anonymously), with CORS for this page. The catalog servers keep their tables
 * in local folders (`file://` locations) and a browser writes table files only to S3 (or its own
 * OPFS): this lets the page write the catalogs' tables where a real service's bucket would hold
 * them. It answers ListObjectsV2 (prefix and `/` delimiter, one page), GET (ranges), HEAD, PUT
 * (`If-None-Match: *` answered 412 when the object exists) and DELETE. */
async function folderS3(root, bucket) {
  const port = await freePort();
  const cors = {
    "Access-Control-Allow-Origin": ORIGIN,
    "Access-Control-Allow-Methods": "GET, PUT, DELETE, HEAD, POST",
    "Access-Control-Allow-Headers": "Authorization, Range, If-None-Match, Content-Type, x-amz-content-sha256, x-amz-date",
    "Access-Control-Expose-Headers": "ETag, Content-Length, Content-Range",
    Vary: "Origin",
  };
  const xml = (text) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  const error = (res, status, code) =>
    res.writeHead(status, { ...cors, "Content-Type": "application/xml" }).end(`<Error><Code>${code}</Code></Error>`);
  const srv = createHttpServer((req, res) => {
    if (req.method === "OPTIONS") return res.writeHead(204, cors).end();
    const url = new URL(req.url, "http://x");
    const [first, ...rest] = url.pathname.split("/").slice(1);
    if (first !== bucket) return error(res, 404, "NoSuchBucket");
    const key = rest.map(decodeURIComponent).join("/");
    if (!key && req.method === "GET") {
      const prefix = url.searchParams.get("prefix") ?? "";
      const folder = join(root, prefix.slice(0, prefix.lastIndexOf("/") + 1));
      const entries = existsSync(folder) && statSync(folder).isDirectory() ? readdirSync(folder, { withFileTypes: true }) : [];
      const base = prefix.slice(0, prefix.lastIndexOf("/") + 1);
      let body = `<?xml version="1.0" encoding="UTF-8"?><ListBucketResult><Name>${bucket}</Name><IsTruncated>false</IsTruncated>`;
      for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
        const k = base + e.name;
        if (!k.startsWith(prefix)) continue;
        if (e.isDirectory()) body += `<CommonPrefixes><Prefix>${xml(k)}/</Prefix></CommonPrefixes>`;
        else body += `<Contents><Key>${xml(k)}</Key><Size>${statSync(join(folder, e.name)).size}</Size></Contents>`;
      }
      return res.writeHead(200, { ...cors, "Content-Type": "application/xml" }).end(`${body}</ListBucketResult>`);
    }
    const path = normalize(join(root, key));
    if (!path.startsWith(root)) return error(res, 403, "AccessDenied");
    const exists = existsSync(path) && statSync(path).isFile();
    if (req.method === "PUT") {
      const chunks = [];
      req.on("data", (c) => chunks.push(c));
      req.on("end", () => {
        if (req.headers["if-none-match"] === "*" && exists) return error(res, 412, "PreconditionFailed");
        mkdirSync(dirname(path), { recursive: true });
        writeFileSync(path, Buffer.concat(chunks));
        res.writeHead(200, { ...cors, ETag: `"${Date.now()}"` }).end();
      });
      return;
    }
    if (req.method === "DELETE") {
      rmSync(path, { force: true });
      return res.writeHead(204, cors).end();
    }
    if (!exists) return error(res, 404, "NoSuchKey");
    const data = readFileSync(path);
    const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? "");
    if (range) {
      const start = Number(range[1]);
      const end = Math.min(range[2] ? Number(range[2]) : data.length - 1, data.length - 1);
      res.writeHead(206, { ...cors, "Content-Range": `bytes ${start}-${end}/${data.length}`, "Content-Length": end - start + 1 });
      return req.method === "HEAD" ? res.end() : res.end(data.subarray(start, end + 1));
    }
    res.writeHead(200, { ...cors, "Content-Length": data.length, ETag: `"${data.length}"` });
    return req.method === "HEAD" ? res.end() : res.end(data);
  });
  await new Promise((resolve) => srv.listen(port, "127.0.0.1", resolve));
  servers.push(srv);
  return `http://127.0.0.1:${port}`;
}

/** An oracle script's output: per snapshot, "== <id>" and canonical JSON lines. */
function sections(text) {
  const out = [];
  for (const line of text.split("\n")) {
    if (line.startsWith("== ")) out.push({ id: line.slice(3).trim(), rows: [] });
    else if (line.startsWith("!! ")) throw new Error(`the writer could not read ${line}`);
    else if (line.trim()) out.at(-1).rows.push(JSON.parse(line));
  }
  return out;
}

const oracle = (script, args) =>
  execFileSync(PYTHON, [`${ROOT}tests/oracles/${script}`, ...args], { encoding: "utf8", maxBuffer: 64 << 20 });

/** A grid cell compared: timestamps in the writers' form; a whole double's `.0` dropped (the
 * grid prints doubles as Python does, JSON.parse keeps no `.0`). */
const cell = (text) => normaliseCell(text).replace(/^(-?\d+)\.0$/, "$1");

/** Rows as grid lines (`a|b|c` in column order, NULL as the grid shows it), sorted. */
const lines = (rows) =>
  rows.map((r) => Object.values(r).map((v) => cell(v === null ? "NULL" : String(v))).join("|")).sort();

before(async () => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "lakescope-catalogs-")));
  const [p, i] = await Promise.all([
    startCatalog("paimon-rest-server.sh", `${dir}/wh`),
    startCatalog("iceberg-rest-server-lakana.sh", `${dir}/ice`),
  ]);
  paimon = { url: p.url, proxy: await corsProxy(p.url) };
  iceberg = { url: i.url, proxy: await corsProxy(i.url), token: i.token };
  oracle("rest_paimon.py", [paimon.url, "wh", PAIMON_TOKEN, "write"]);
  oracle("rest_iceberg.py", [iceberg.url, iceberg.token, "dev", "write", "bronze"]);
  // A static host lists nothing: each Paimon table folder gets its listing index.
  for (const t of readdirSync(`${dir}/wh/d`)) execFileSync("python3", [`${ROOT}scripts/gen-index.py`, `${dir}/wh/d/${t}`]);
  const port = await freePort();
  servers.push(await serveWithCors(dir, port));
  files = `http://127.0.0.1:${port}/`;
});

after(() => {
  for (const s of servers) s.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Opens `address` from a deep link, then connects with `token` (and the served file location). */
async function connect(address, token) {
  const ctx = await openPage(`?warehouse=${encodeURIComponent(address)}`);
  const { page } = ctx;
  await page.getByTestId("catalog-form").waitFor({ timeout: 30_000 });
  // The link opened the catalog without a token: its answer lands first.
  await page.getByTestId("catalog-error").waitFor({ timeout: 30_000 });
  await page.getByTestId("catalog-token").fill(token);
  await page.getByTestId("catalog-files-location").fill(`file://${dir}/`);
  await page.getByTestId("catalog-files-url").fill(files);
  await page.getByTestId("catalog-open").click();
  return ctx;
}

/** Connects to `address` with `token`, its table files (under the test's folder) written and
 * read through `folderS3` at `s3` as bucket `lake`: the S3 settings first (anonymous,
 * path-style), then the catalog form with `s3://lake/` as where the files are served. */
async function connectWritable(address, token, s3) {
  const ctx = await openPage("");
  const { page } = ctx;
  await page.getByTestId("warehouse-uri").fill("s3://lake/");
  await page.getByTestId("s3-form").waitFor({ timeout: 30_000 });
  await page.getByTestId("s3-endpoint").fill(s3);
  await page.getByTestId("s3-region").fill("us-east-1");
  await page.getByTestId("s3-path-style").check();
  await page.getByTestId("s3-auth").selectOption("anonymous");
  await page.getByTestId("warehouse-uri").fill(address);
  await page.getByTestId("catalog-form").waitFor({ timeout: 30_000 });
  await page.getByTestId("catalog-token").fill(token);
  await page.getByTestId("catalog-files-location").fill(`file://${dir}/`);
  await page.getByTestId("catalog-files-url").fill("s3://lake/");
  await page.getByTestId("catalog-open").click();
  return ctx;
}

/** Replaces the SQL tab's text and runs it; waits until the run has finished. The texts of the
 * statements' results (messages and errors). */
async function runSql(page, sql) {
  await page.getByTestId("sql-editor").fill(sql);
  await page.getByTestId("sql-run").click();
  await page.waitForFunction(
    () => {
      const run = document.querySelector('[data-testid="sql-run"]');
      return run && !run.disabled && document.querySelectorAll('[data-testid="sql-result"], [data-testid="sql-failure"]').length > 0;
    },
    null,
    { timeout: 180_000 },
  );
  return page.locator('[data-testid="sql-result"], [data-testid="sql-failure"]').allTextContents();
}

/** Goes to `params` inside the page (the token stays in its memory: a reload would drop it). */
async function navigate(page, params) {
  await page.evaluate((search) => {
    history.pushState(null, "", search);
    dispatchEvent(new PopStateEvent("popstate"));
  }, `?${params}`);
}

/** Reads `table` at each snapshot in the Data tab and compares with the writer's own read. */
async function checkSnapshots(page, address, table, expected) {
  assert.ok(expected.length > 0, `${table}: the writer read no snapshots`);
  for (const { id, rows } of expected) {
    await navigate(page, `warehouse=${encodeURIComponent(address)}&table=${table}&tab=data&snapshot=${id}`);
    await page
      .getByTestId("row-total")
      .filter({ hasText: new RegExp(`^${rows.length} rows?$`) })
      .waitFor({ timeout: 30_000 });
    const got = (await gridRows(page)).map((line) => line.split("|").map(cell).join("|")).sort();
    assert.deepEqual(got, lines(rows), `${table} at snapshot ${id}`);
  }
}

test("a Paimon REST catalog: a refused token, then the tree, every snapshot's rows and the tabs", async () => {
  const address = `paimon+rest://${paimon.proxy.replace("http://", "")}/wh`;
  const { page, close } = await connect(address, "not-the-token");
  try {
    const error = page.getByTestId("catalog-error");
    await error.filter({ hasText: /refused the token \(HTTP 401\)/ }).waitFor({ timeout: 30_000 });
    assert.match(await error.textContent(), new RegExp(`catalog at ${paimon.proxy} refused the token`));

    await page.getByTestId("catalog-token").fill(PAIMON_TOKEN);
    await page.getByTestId("catalog-open").click();
    await page
      .getByTestId("connection-status")
      .filter({ hasText: /· 1 databases · 2 tables$/ })
      .waitFor({ timeout: 30_000 });
    const tree = await page.getByTestId("sidebar").textContent();
    assert.match(tree, /ap/);
    assert.match(tree, /pk/);
    assert.ok(!page.url().includes(PAIMON_TOKEN), "the token is never in the URL");
    await shot(page, "catalogs-paimon-tree");

    const read = {};
    for (const table of ["d.pk", "d.ap"]) {
      const latest = JSON.parse(oracle("rest_paimon.py", [paimon.url, "wh", PAIMON_TOKEN, "latest", table])).id;
      const ids = Array.from({ length: latest }, (_, k) => String(k + 1));
      read[table] = sections(oracle("rest_paimon.py", [paimon.url, "wh", PAIMON_TOKEN, "read", table, ...ids]));
      await checkSnapshots(page, address, table, read[table]);
    }
    assert.ok(!page.url().includes(PAIMON_TOKEN), "the token is never in the URL");

    // The other tabs read through the catalog too.
    await navigate(page, `warehouse=${encodeURIComponent(address)}&table=d.pk&tab=snapshots`);
    await page.getByTestId("snapshots-table").waitFor({ timeout: 30_000 });
    await navigate(page, `warehouse=${encodeURIComponent(address)}&table=d.pk&tab=files`);
    await page.getByTestId("files-table").waitFor({ timeout: 30_000 });
    await navigate(page, `warehouse=${encodeURIComponent(address)}&table=d.pk&tab=schema`);
    await page.getByTestId("tab-body-schema").getByText("price").first().waitFor({ timeout: 30_000 });
    // The Diff tab: the rows pypaimon's reads of snapshots 1 and 2 differ in.
    await navigate(page, `warehouse=${encodeURIComponent(address)}&table=d.pk&tab=diff&from=1&to=2`);
    await page.getByTestId("diff-grid").waitFor({ timeout: 30_000 });
    const [one, two] = read["d.pk"].map((snapshot) => snapshot.rows);
    const changed = changedRows(one, two, (r) => `${r.dt}/${r.id}`);
    assert.ok(changed.length > 0);
    assert.match(await page.getByTestId("diff-summary").textContent(), new RegExp(`~${changed.length} changed`));
    // Writes from the page's buttons are refused by name, pointing to the SQL tab.
    await navigate(page, `warehouse=${encodeURIComponent(address)}&table=d.pk&tab=data`);
    await page
      .getByTestId("upload-status")
      .filter({ hasText: /cannot insert files through a REST catalog yet: use the SQL tab/ })
      .waitFor({ timeout: 30_000 });
    assert.equal(await page.locator('[data-testid="error-panel"]').count(), 0);
    await shot(page, "catalogs-paimon-data");
  } finally {
    await close();
  }
});

test("an Iceberg REST catalog: the tree and every snapshot's rows as pyiceberg reads them", async () => {
  const address = `iceberg+rest://${iceberg.proxy.replace("http://", "")}?prefix=dev`;
  const { page, close } = await connect(address, iceberg.token);
  try {
    await page
      .getByTestId("connection-status")
      .filter({ hasText: /· \d+ databases · 2 tables$/ })
      .waitFor({ timeout: 30_000 });
    const tree = await page.getByTestId("sidebar").textContent();
    assert.match(tree, /events/);
    assert.match(tree, /plain/);
    const read = {};
    for (const table of ["bronze.events", "bronze.plain"]) {
      read[table] = sections(oracle("rest_iceberg.py", [iceberg.url, iceberg.token, "dev", "read", table]));
      await checkSnapshots(page, address, table, read[table]);
    }
    // The Diff tab between the first two snapshots: the rows the second append added.
    const [first, second] = read["bronze.events"];
    const before = new Set(first.rows.map((r) => JSON.stringify(r)));
    const inserted = second.rows.filter((r) => !before.has(JSON.stringify(r))).length;
    assert.ok(inserted > 0);
    await navigate(page, `warehouse=${encodeURIComponent(address)}&table=bronze.events&tab=diff&from=${first.id}&to=${second.id}`);
    await page.getByTestId("diff-summary").filter({ hasText: `+${inserted} inserted` }).waitFor({ timeout: 30_000 });
    await navigate(page, `warehouse=${encodeURIComponent(address)}&table=bronze.events&tab=overview`);
    await page.getByTestId("format-version").waitFor({ timeout: 30_000 });
    await navigate(page, `warehouse=${encodeURIComponent(address)}&table=bronze.events&tab=snapshots`);
    await page.getByTestId("tab-body-snapshots").getByText(/append|delete|overwrite/).first().waitFor({ timeout: 30_000 });
    assert.ok(!page.url().includes(iceberg.token), "the token is never in the URL");
    await shot(page, "catalogs-iceberg-data");
  } finally {
    await close();
  }
});

test("a catalog that sends no CORS headers is named, with what to allow", async () => {
  // The Paimon server itself, without the proxy: the browser refuses its answers.
  const address = `paimon+rest://${paimon.url.replace("http://", "")}/wh`;
  const { page, close } = await connect(address, PAIMON_TOKEN);
  try {
    const error = page.getByTestId("catalog-error");
    await error.filter({ hasText: /CORS/ }).waitFor({ timeout: 30_000 });
    const text = await error.textContent();
    assert.match(text, new RegExp(`catalog at ${paimon.url} did not allow this page's origin \\(CORS\\)`));
    assert.match(text, new RegExp(`allow origin ${ORIGIN}`));
    assert.match(text, /Authorization and Content-Type/);
  } finally {
    await close();
  }
});

test("the token is kept on the device only when the user asks, and Forget removes it", async () => {
  const address = `paimon+rest://${paimon.proxy.replace("http://", "")}/wh`;
  const { page, close } = await connect(address, PAIMON_TOKEN);
  const stored = () => page.evaluate(() => localStorage.getItem("lakescope-catalog-connection"));
  const connected = () =>
    page.getByTestId("connection-status").filter({ hasText: /· 1 databases · 2 tables$/ }).waitFor({ timeout: 30_000 });
  try {
    await connected();
    assert.equal(await stored(), null, "not remembered unless asked");
    assert.equal(await page.getByTestId("catalog-credential").count(), 0, "OAuth2 is an Iceberg REST flow");
    await page.reload();
    await page.getByTestId("catalog-error").filter({ hasText: /refused the token/ }).waitFor({ timeout: 30_000 });
    assert.equal(await page.getByTestId("catalog-token").inputValue(), "", "a reload forgets the token");

    await page.getByTestId("catalog-token").fill(PAIMON_TOKEN);
    await page.getByTestId("catalog-remember").check();
    await page.getByTestId("catalog-open").click();
    await connected();
    assert.match(await stored(), new RegExp(PAIMON_TOKEN));
    await page.reload();
    await connected(); // the remembered token opens the link
    await page.getByTestId("catalog-forget").click();
    assert.equal(await stored(), null);
    assert.equal(await page.getByTestId("catalog-token").inputValue(), "");
  } finally {
    await close();
  }
});

test("an Iceberg catalog's client credential is exchanged for its token, kept only when asked", async () => {
  const forms = [];
  const proxy = await corsProxy(iceberg.url, (form) => {
    forms.push(Object.fromEntries(form));
    return form.get("client_secret") === "s3cr=t" ? iceberg.token : null;
  });
  const address = `iceberg+rest://${proxy.replace("http://", "")}?prefix=dev`;
  const { page, close } = await openPage(`?warehouse=${encodeURIComponent(address)}`);
  const stored = () => page.evaluate(() => localStorage.getItem("lakescope-catalog-connection"));
  try {
    await page.getByTestId("catalog-error").waitFor({ timeout: 30_000 });
    await page.getByTestId("catalog-credential").fill("lake-id:wrong");
    await page.getByTestId("catalog-open").click();
    // the token endpoint's refusal replaces the catalog's own (opened without secrets)
    const refused = page.getByTestId("catalog-error").filter({ hasText: /\/v1\/oauth\/tokens answered 401/ });
    await refused.waitFor({ timeout: 30_000 });
    const text = await refused.textContent();
    assert.match(text, /refused the token or credential \(HTTP 401\)/);
    assert.match(text, /POST http:\/\/127\.0\.0\.1:\d+\/v1\/oauth\/tokens answered 401: invalid_client: unknown client/);

    await page.getByTestId("catalog-credential").fill("lake-id:s3cr=t");
    await page.getByTestId("catalog-remember").check();
    await page.getByTestId("catalog-open").click();
    await page
      .getByTestId("connection-status")
      .filter({ hasText: /· \d+ databases · 2 tables$/ })
      .waitFor({ timeout: 30_000 });
    assert.deepEqual(forms.at(-1), {
      grant_type: "client_credentials",
      client_id: "lake-id",
      client_secret: "s3cr=t",
      scope: "catalog",
    });
    assert.ok(!page.url().includes("s3cr"), "the credential is never in the URL");
    assert.match(await stored(), /lake-id:s3cr=t/);
    await shot(page, "catalogs-credential");
    await page.getByTestId("catalog-forget").click();
    assert.equal(await stored(), null);
    assert.equal(await page.getByTestId("catalog-credential").inputValue(), "");
  } finally {
    await close();
  }
});

test("a table at a location the browser cannot read names the location and what to do", async () => {
  const address = `paimon+rest://${paimon.proxy.replace("http://", "")}/wh`;
  const { page, close } = await openPage(`?warehouse=${encodeURIComponent(address)}`);
  try {
    await page.getByTestId("catalog-error").waitFor({ timeout: 30_000 });
    await page.getByTestId("catalog-token").fill(PAIMON_TOKEN);
    await page.getByTestId("catalog-open").click();
    await page.getByTestId("connection-status").filter({ hasText: /· 2 tables$/ }).waitFor({ timeout: 30_000 });
    await navigate(page, `warehouse=${encodeURIComponent(address)}&table=d.ap&tab=data`);
    const error = page.locator('[data-testid="data-error"], [data-testid="error-panel"]').first();
    await error.waitFor({ timeout: 30_000 });
    const text = await error.textContent();
    assert.match(text, new RegExp(`file://${dir}/wh/d/ap`));
    assert.match(text, /a file:\/\/ location in a browser/);
    assert.match(text, /Table files under … are served at …/);
  } finally {
    await close();
  }
});

test("the SQL tab commits through a Paimon REST catalog: INSERT, UPDATE, a tag; pypaimon reads them", async () => {
  const s3 = await folderS3(dir, "lake");
  const address = `paimon+rest://${paimon.proxy.replace("http://", "")}/wh`;
  const table = (t) => `warehouse=${encodeURIComponent(address)}&table=${t}`;
  const py = (...args) => oracle("rest_paimon.py", [paimon.url, "wh", PAIMON_TOKEN, ...args]);
  const { page, close } = await connectWritable(address, PAIMON_TOKEN, s3);
  try {
    await page.getByTestId("connection-status").filter({ hasText: /· 1 databases · 2 tables$/ }).waitFor({ timeout: 30_000 });
    const ap = JSON.parse(py("latest", "d.ap")).id;
    const pk = JSON.parse(py("latest", "d.pk")).id;
    const [pkBefore] = sections(py("read", "d.pk", String(pk)));
    await navigate(page, `${table("d.ap")}&tab=sql`);
    await page.getByTestId("sql-editor").waitFor({ timeout: 30_000 });
    const results = await runSql(
      page,
      "INSERT INTO d.ap VALUES (77, 'from the page');\n" +
        "UPDATE d.pk SET name = 'page' WHERE id = 1 AND dt = '2024-02';\n" +
        "CALL sys.create_tag('d.pk', 'page_tag');",
    );
    assert.equal(results.length, 3, results.join("\n"));
    assert.equal(await page.getByTestId("sql-failure").count(), 0, results.join("\n"));
    assert.equal(await page.getByTestId("sql-error").count(), 0, results.join("\n"));
    assert.match(results[2], /through REST catalog lakescope/);
    await shot(page, "catalogs-paimon-sql-commit");

    // pypaimon reads the commits through the catalog: the new row, the updated one, the tag
    assert.equal(JSON.parse(py("latest", "d.ap")).id, ap + 1);
    assert.equal(JSON.parse(py("latest", "d.pk")).id, pk + 1);
    const [apAfter] = sections(py("read", "d.ap", String(ap + 1)));
    assert.ok(apAfter.rows.some((r) => r.n === 77 && r.s === "from the page"), JSON.stringify(apAfter.rows));
    const [pkAfter] = sections(py("read", "d.pk", String(pk + 1)));
    const want = pkBefore.rows.map((r) => (r.id === 1 && r.dt === "2024-02" ? { ...r, name: "page" } : r));
    assert.deepEqual(lines(pkAfter.rows), lines(want));
    assert.equal(py("tag", "d.pk", "page_tag").trim(), String(pk + 1));

    // the Data tab shows the new snapshots' rows as pypaimon reads them
    await checkSnapshots(page, address, "d.ap", [apAfter]);
    await checkSnapshots(page, address, "d.pk", [pkAfter]);
    await navigate(page, `${table("d.ap")}&tab=data`);
    await page.getByTestId("row-total").filter({ hasText: new RegExp(`^${apAfter.rows.length} rows?$`) }).waitFor({ timeout: 30_000 });
    assert.ok(!page.url().includes(PAIMON_TOKEN), "the token is never in the URL");
  } finally {
    await close();
  }
});

test("the SQL tab commits through an Iceberg REST catalog; pyiceberg reads the row", async () => {
  const s3 = await folderS3(dir, "lake");
  const address = `iceberg+rest://${iceberg.proxy.replace("http://", "")}?prefix=dev`;
  const { page, close } = await connectWritable(address, iceberg.token, s3);
  try {
    await page.getByTestId("connection-status").filter({ hasText: /· \d+ databases · 2 tables$/ }).waitFor({ timeout: 30_000 });
    const before = sections(oracle("rest_iceberg.py", [iceberg.url, iceberg.token, "dev", "read", "bronze.plain"])).at(-1);
    await navigate(page, `warehouse=${encodeURIComponent(address)}&table=bronze.plain&tab=sql`);
    await page.getByTestId("sql-editor").waitFor({ timeout: 30_000 });
    const results = await runSql(
      page,
      "INSERT INTO bronze.plain VALUES (77, 'page', 7.70, 1.5, TRUE, TIMESTAMP '2024-05-03 10:00:00', '2024-05-02');",
    );
    assert.equal(await page.getByTestId("sql-failure").count(), 0, results.join("\n"));
    assert.equal(await page.getByTestId("sql-error").count(), 0, results.join("\n"));
    const after = sections(oracle("rest_iceberg.py", [iceberg.url, iceberg.token, "dev", "read", "bronze.plain"])).at(-1);
    assert.notEqual(after.id, before.id, "a new snapshot");
    assert.equal(after.rows.length, before.rows.length + 1);
    assert.ok(after.rows.some((r) => r.id === 77 && r.name === "page"), JSON.stringify(after.rows));
    await checkSnapshots(page, address, "bronze.plain", [after]);
  } finally {
    await close();
  }
});

test("a commit with a token the catalog refuses is a clear message", async () => {
  const s3 = await folderS3(dir, "lake");
  // the page opened the catalog; then the service stops accepting the token (a revoked or
  // expired token): the proxy answers 401 to every request from then on
  let revoked = false;
  const port = await freePort();
  const gate = createHttpServer((req, res) => {
    const cors = { "Access-Control-Allow-Origin": ORIGIN, "Access-Control-Allow-Methods": "GET, POST, DELETE, HEAD", "Access-Control-Allow-Headers": "Authorization, Content-Type", Vary: "Origin" };
    if (req.method === "OPTIONS") return res.writeHead(204, cors).end();
    if (revoked) return res.writeHead(401, { ...cors, "Content-Type": "application/json" }).end(JSON.stringify({ message: "token revoked", code: 401 }));
    const to = new URL(req.url, paimon.url);
    const forward = httpRequest(to, { method: req.method, headers: { ...req.headers, host: to.host } }, (answer) => {
      res.writeHead(answer.statusCode, { ...answer.headers, ...cors });
      answer.pipe(res);
    });
    req.pipe(forward);
  });
  await new Promise((resolve) => gate.listen(port, "127.0.0.1", resolve));
  servers.push(gate);
  const address = `paimon+rest://127.0.0.1:${port}/wh`;
  const { page, close } = await connectWritable(address, PAIMON_TOKEN, s3);
  try {
    await page.getByTestId("connection-status").filter({ hasText: /· 1 databases · 2 tables$/ }).waitFor({ timeout: 30_000 });
    const latest = JSON.parse(oracle("rest_paimon.py", [paimon.url, "wh", PAIMON_TOKEN, "latest", "d.ap"])).id;
    await navigate(page, `warehouse=${encodeURIComponent(address)}&table=d.ap&tab=sql`);
    await page.getByTestId("sql-editor").waitFor({ timeout: 30_000 });
    // the console's session opens the catalog with the token, and reads through it
    const counted = await runSql(page, "SELECT COUNT(*) AS n FROM d.ap;");
    assert.equal(await page.getByTestId("sql-error").count(), 0, counted.join("\n"));
    revoked = true;
    const results = await runSql(page, "INSERT INTO d.ap VALUES (78, 'refused');");
    const text = results.join("\n");
    assert.match(text, /401/);
    assert.match(text, new RegExp(`127\\.0\\.0\\.1:${port}`));
    assert.ok(!text.includes(PAIMON_TOKEN), text);
    assert.equal(await page.getByTestId("sql-error").count(), 1, text);
    assert.equal(JSON.parse(oracle("rest_paimon.py", [paimon.url, "wh", PAIMON_TOKEN, "latest", "d.ap"])).id, latest, "nothing committed");
  } finally {
    await close();
  }
});
