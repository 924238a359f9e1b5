// End-to-end storage: the built app opens an S3 warehouse on a real S3 server (moto, on another
// port than the page, so the bucket's CORS rules are really exercised) with keys signed in wasm
// and through `lakescope presign-server`, and an OPFS copy of the demo lake; errors in plain words.
// Run by scripts/test.sh (layer 3); by hand, with dist/ served on LAKESCOPE_URL:
//   bash scripts/s3-test-server.sh && cargo build -p lakescope-cli
//   cd tests/e2e && LAKESCOPE_URL=http://127.0.0.1:8081/ node --test storage.test.js
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { request as httpRequest, createServer as createHttpServer } from "node:http";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { freePort, gridRows, SHARED } from "./harness.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const BASE = process.env.LAKESCOPE_URL ?? "http://127.0.0.1:8080/";
const ORIGIN = new URL(BASE).origin;
const SCREENS = process.env.LAKESCOPE_SCREENS ?? `${ROOT}target/e2e-screens`;
const MOTO = process.env.LAKESCOPE_MOTO_SERVER ?? `${process.env.LAKESCOPE_MOTO_VENV ?? `${ROOT}target/venv-moto`}/bin/moto_server`;
const PYTHON = `${dirname(MOTO)}/python`; // moto's venv has boto3 for the fixture
const LAKESCOPE = process.env.LAKESCOPE_BIN ?? `${ROOT}target/debug/lakescope`;
const DEMO = `${ROOT}public/demo/warehouse`;
const CORPUS = process.env.LAKESCOPE_CORPUS ?? `${SHARED}corpus/paimon/warehouse`;
const EXPECTED = process.env.LAKESCOPE_EXPECTED ?? `${SHARED}corpus/expected/paimon`;
// A corpus table that is not in the demo lake, uploaded on its own.
const CORPUS_TABLE = "corpus.pk_dynamic_bucket";
// Tables whose rows are compared between the S3 / OPFS copy and the bundled demo lake.
const COMPARED = ["corpus.pk_dedup", "java09.pk_deletion_vectors", "shop.orders"];
const KEYS = { id: "AKIAE2ELAKESCOPE0001", secret: "e2e/secret+key=never-shown" };
const BUCKET = "lake";

/** Creates buckets, sets their CORS rules and uploads folders (boto3, SigV4 by botocore). */
const FIXTURE = String.raw`
import boto3, json, os, sys
spec = json.loads(sys.argv[1])
s3 = boto3.client("s3", endpoint_url=spec["endpoint"], region_name="us-east-1",
                  aws_access_key_id=spec["key"], aws_secret_access_key=spec["secret"])
for b in spec["buckets"]:
    s3.create_bucket(Bucket=b["name"])
    # The rules the README asks for: this page's origin, the methods, headers and exposed headers.
    s3.put_bucket_cors(Bucket=b["name"], CORSConfiguration={"CORSRules": [{
        "AllowedOrigins": b["origins"], "AllowedMethods": ["GET", "HEAD", "PUT", "DELETE"],
        "AllowedHeaders": ["Authorization", "Range", "If-None-Match", "Content-Type", "x-amz-*"],
        "ExposeHeaders": ["ETag", "Content-Length", "Content-Range"], "MaxAgeSeconds": 600}]})
    n = 0
    for local, prefix in b["uploads"]:
        for folder, _, names in os.walk(local):
            for name in names:
                full = os.path.join(folder, name)
                key = prefix + os.path.relpath(full, local).replace(os.sep, "/")
                s3.upload_file(full, b["name"], key)
                n += 1
    print(b["name"], n, "objects")
`;

/**
 * moto does not check signatures by default (and with its auth on, it refuses CORS preflights), so
 * botocore, an independent SigV4 implementation, recomputes the signature of requests the page
 * sent from the headers it signed and the secret key; every one must match.
 */
const VERIFY_SIGV4 = String.raw`
import json, sys
from botocore.auth import S3SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials
spec = json.loads(sys.argv[1])
creds = Credentials(spec["key"], spec["secret"])
bad = 0
for r in spec["requests"]:
    auth_header = r["headers"]["authorization"]
    fields = dict(p.strip().split("=", 1) for p in auth_header.split(" ", 1)[1].split(","))
    signed = fields["SignedHeaders"].split(";")
    headers = {h: r["headers"][h] for h in signed if h != "host"}
    req = AWSRequest(method=r["method"], url=r["url"], headers=headers)
    req.context["timestamp"] = r["headers"]["x-amz-date"]
    signer = S3SigV4Auth(creds, "s3", "us-east-1")
    expected = signer.signature(signer.string_to_sign(req, signer.canonical_request(req)), req)
    if expected != fields["Signature"]:
        bad += 1
        print("MISMATCH", r["method"], r["url"], signer.canonical_request(req))
print(len(spec["requests"]) - bad, "signatures verified,", bad, "wrong")
sys.exit(1 if bad else 0)
`;

let browser;
const children = [];
let moto;
let presign;
let proxy;


function startChild(cmd, args, env = {}) {
  const child = spawn(cmd, args, { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let log = "";
  child.stdout.on("data", (d) => (log += d));
  child.stderr.on("data", (d) => (log += d));
  children.push(child);
  return { child, log: () => log };
}

/** One request to `target` (host header kept as sent: SigV4 signs it), answered in full. */
function forward(target, req, body) {
  return new Promise((resolve, reject) => {
    const up = httpRequest(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
      (res) => {
        const chunks = [];
        res.on("data", (c) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
      },
    );
    up.on("error", reject);
    up.end(body);
  });
}

/**
 * moto evaluates a bucket's CORS rules for preflights, but sends CORS headers only with GetObject
 * answers (not with ListObjectsV2, HEAD, PUT, DELETE or errors), which a browser then refuses.
 * This proxy passes everything to moto unchanged and adds to those answers exactly the headers
 * that moto's own evaluation grants the request's origin (its preflight answer for the bucket):
 * an origin the rules do not allow gets none, as on real S3. moto also answers preflights with
 * the configured AllowedHeaders verbatim (`x-amz-*`), a pattern browsers do not understand; S3
 * answers with the requested headers that match the patterns, and so does this proxy.
 */
function startCorsProxy(port, target) {
  const upstream = new URL(target);
  const server = createHttpServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", async () => {
      try {
        const bucket = req.url.split("?")[0].split("/")[1];
        // moto's rule evaluation does not depend on the key (its own comment says so), but its
        // object-level preflight answers lack the headers: ask at the bucket level.
        const asked = req.method === "OPTIONS" ? { method: "OPTIONS", url: `/${bucket}`, headers: req.headers } : req;
        const answer = await forward(upstream, asked, Buffer.concat(chunks));
        const origin = req.headers.origin;
        const patterns = answer.headers["access-control-allow-headers"];
        if (req.method === "OPTIONS" && patterns) {
          const allowed = patterns.split(",").map((p) => new RegExp(`^${p.trim().replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*")}$`, "i"));
          const asked = (req.headers["access-control-request-headers"] ?? "").split(",").map((h) => h.trim()).filter(Boolean);
          answer.headers["access-control-allow-headers"] = asked.filter((h) => allowed.some((re) => re.test(h))).join(", ");
        }
        if (req.method !== "OPTIONS" && origin && !answer.headers["access-control-allow-origin"]) {
          const preflight = await forward(
            upstream,
            { method: "OPTIONS", url: `/${bucket}`, headers: { origin, "access-control-request-method": req.method, host: req.headers.host } },
            Buffer.alloc(0),
          );
          const granted = preflight.headers["access-control-allow-origin"];
          if (preflight.status === 200 && granted) {
            answer.headers["access-control-allow-origin"] = granted;
            const expose = preflight.headers["access-control-expose-headers"];
            if (expose) answer.headers["access-control-expose-headers"] = expose;
            answer.headers.vary = "Origin";
          }
        }
        res.writeHead(answer.status, answer.headers);
        res.end(answer.body);
      } catch (e) {
        res.writeHead(502);
        res.end(String(e));
      }
    });
  });
  return new Promise((resolve) => server.listen(port, "127.0.0.1", () => resolve(server)));
}

async function waitHttp(url, what, log) {
  for (let i = 0; i < 200; i++) {
    try {
      await fetch(url);
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error(`${what} did not answer at ${url}:\n${log()}`);
}

before(async () => {
  for (const [what, path, how] of [
    ["moto_server", MOTO, "bash scripts/s3-test-server.sh"],
    ["lakescope", LAKESCOPE, "cargo build -p lakescope-cli"],
  ]) {
    if (!existsSync(path)) throw new Error(`${what} not found at ${path}: run \`${how}\``);
  }
  mkdirSync(SCREENS, { recursive: true });
  const motoPort = await freePort();
  const motoDirect = `http://127.0.0.1:${motoPort}`;
  // Only the buckets' CORS rules decide what the page may do (no blanket CORS from moto).
  const m = startChild(MOTO, ["-H", "127.0.0.1", "-p", String(motoPort)], { MOTO_DISABLE_GLOBAL_CORS: "true" });
  await waitHttp(motoDirect, "moto_server", m.log);
  const proxyPort = await freePort();
  proxy = await startCorsProxy(proxyPort, motoDirect);
  moto = `http://127.0.0.1:${proxyPort}`; // what the browser and the presign server use
  assert.notEqual(new URL(moto).origin, ORIGIN, "S3 must be another origin than the page");
  const spec = {
    endpoint: motoDirect,
    key: KEYS.id,
    secret: KEYS.secret,
    buckets: [
      {
        name: BUCKET,
        origins: [ORIGIN],
        uploads: [
          [DEMO, "demo/"],
          [`${CORPUS}/${CORPUS_TABLE.replace(".", ".db/")}`, `corpus/${CORPUS_TABLE.replace(".", ".db/")}/`],
        ],
      },
      // A bucket whose CORS rules allow some other site only.
      { name: "elsewhere", origins: ["https://other.example"], uploads: [[`${DEMO}/demo.db`, "w/demo.db/"]] },
    ],
  };
  // Asynchronously: moto logs every request to a pipe this process must keep draining.
  const fx = startChild(PYTHON, ["-c", FIXTURE, JSON.stringify(spec)]);
  const status = await new Promise((resolve) => fx.child.on("exit", resolve));
  assert.equal(status, 0, `S3 fixture failed:\n${fx.log()}`);

  const presignPort = await freePort();
  presign = `http://127.0.0.1:${presignPort}/presign`;
  const p = startChild(
    LAKESCOPE,
    ["--s3-endpoint", moto, "--s3-path-style", "presign-server", "--bucket", BUCKET, "--listen", `127.0.0.1:${presignPort}`],
    { AWS_ACCESS_KEY_ID: KEYS.id, AWS_SECRET_ACCESS_KEY: KEYS.secret, AWS_REGION: "us-east-1" },
  );
  await waitHttp(`http://127.0.0.1:${presignPort}/`, "lakescope presign-server", p.log);

  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
  });
});

after(async () => {
  await browser?.close();
  proxy?.close();
  for (const c of children) c.kill();
});

/** A fresh browser context (own localStorage and OPFS) with a page that records problems. */
async function newPage() {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const problems = [];
  const requests = [];
  page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
  page.on("console", (m) => {
    if (m.type() === "error" && !/status of 404/.test(m.text())) problems.push(`console: ${m.text()}`);
  });
  page.on("requestfailed", (r) => {
    // Leaving a page aborts its fetches (net::ERR_ABORTED): only real failures count.
    if (r.failure()?.errorText !== "net::ERR_ABORTED") problems.push(`failed: ${r.method()} ${r.url()}: ${r.failure()?.errorText}`);
  });
  page.on("request", (r) => {
    if (r.url().startsWith(moto)) requests.push({ url: r.url(), method: r.method(), headers: r.headers() });
  });
  page.on("response", (r) => {
    // Reading a Paimon table probes snapshot-(LATEST+1), as Java does: that 404 is expected.
    const path = new URL(r.url()).pathname;
    if (r.status() === 404 && !/\/snapshot\/snapshot-\d+$/.test(path)) problems.push(`404: ${r.url()}`);
  });
  page.problems = problems;
  return { page, problems, requests, context, close: () => context.close() };
}

const shot = (page, name) => page.screenshot({ path: `${SCREENS}/${name}.png` });

async function tableNames(page) {
  return page.getByTestId("table-node").evaluateAll((els) => els.map((e) => e.dataset.table));
}

/** The data tab's rows of `table` in the warehouse `uri`, once the row count has settled. */
async function dataRows(page, uri, table) {
  await page.goto(new URL(`?warehouse=${encodeURIComponent(uri)}&table=${table}&tab=data`, BASE).href);
  const total = page.getByTestId("row-total");
  try {
    await page.getByTestId("data-grid").waitFor({ timeout: 60_000 });
    await total.filter({ hasText: /^\d+ rows$/ }).waitFor({ timeout: 60_000 });
  } catch (e) {
    await shot(page, "failed-data");
    const text = await page.getByTestId("content").textContent();
    throw new Error(`${table} in ${uri}: ${text}\n${(page.problems ?? []).slice(0, 5).join("\n")}`, { cause: e });
  }
  let last = "";
  for (let i = 0; i < 20; i++) {
    const now = await total.textContent();
    if (now === last) break;
    last = now;
    await page.waitForTimeout(300);
  }
  return { total: last, rows: await gridRows(page) };
}

/** The local demo lake's rows of the compared tables. */
let localRows;
async function demoRows() {
  if (!localRows) {
    const { page, close } = await newPage();
    try {
      localRows = {};
      for (const t of COMPARED) localRows[t] = await dataRows(page, "demo/warehouse/", t);
    } finally {
      await close();
    }
  }
  return localRows;
}

/** The demo lake's tables, from its index (what every copy must list). */
function demoTables() {
  const index = JSON.parse(readFileSync(`${DEMO}/_lakescope_index.json`, "utf8"));
  const tables = new Set();
  for (const f of index.files) {
    // Paimon: <db>.db/<table>/schema/…; Iceberg: <namespace>/<table>/metadata/…
    const m = f.path.match(/^([^/]+?)(?:\.db)?\/([^/]+)\/(schema|metadata)\//);
    if (m) tables.add(`${m[1]}.${m[2]}`);
  }
  return [...tables].sort();
}

/** Types an S3 URI and fills the connection form. */
async function fillS3(page, uri, { auth, remember = false }) {
  await page.getByTestId("warehouse-uri").fill(uri);
  await page.getByTestId("s3-form").waitFor();
  await page.getByTestId("s3-endpoint").fill(moto);
  await page.getByTestId("s3-region").fill("us-east-1");
  await page.getByTestId("s3-path-style").check();
  await page.getByTestId("s3-auth").selectOption(auth);
  if (auth === "keys") {
    await page.getByTestId("s3-access-key").fill(KEYS.id);
    await page.getByTestId("s3-secret-key").fill(KEYS.secret);
  } else if (auth === "presign") {
    await page.getByTestId("s3-presign").fill(presign);
  }
  if (remember) await page.getByTestId("s3-remember").check();
}

async function connected(page, tables) {
  try {
    await page
      .getByTestId("connection-status")
      .filter({ hasText: new RegExp(`· ${tables} tables$`) })
      .waitFor({ timeout: 60_000 });
  } catch (e) {
    await shot(page, "failed-connect");
    const status = await page.getByTestId("connection-status").textContent();
    const error = await page.getByTestId("catalog").textContent();
    throw new Error(`not connected (${status}): ${error}`, { cause: e });
  }
}

test("S3 with keys: SigV4 signed in wasm, through the bucket's CORS rules; rows equal the local demo's", async () => {
  const want = await demoRows();
  const { page, problems, requests, close } = await newPage();
  try {
    await page.goto(BASE);
    await page.getByTestId("catalog-tree").waitFor({ timeout: 60_000 });
    await fillS3(page, `s3://${BUCKET}/demo`, { auth: "keys", remember: true });
    await page.getByTestId("s3-remember-warning").waitFor();
    await shot(page, "s3-01-form");
    await page.getByTestId("s3-open").click();
    const tables = demoTables();
    await connected(page, tables.length);
    assert.deepEqual((await tableNames(page)).sort(), tables);
    assert.match(await page.getByTestId("connection-status").textContent(), /^s3:\/\/lake\/demo\//);
    await shot(page, "s3-02-catalog");

    // Every request to the bucket was signed here with the keys (SigV4 header), none presigned.
    const signed = requests.filter((r) => r.method !== "OPTIONS");
    assert.ok(signed.length > 0, "requests reached moto");
    for (const r of signed) {
      assert.match(r.headers.authorization ?? "", new RegExp(`^AWS4-HMAC-SHA256 Credential=${KEYS.id}/\\d{8}/us-east-1/s3/aws4_request, SignedHeaders=[^,]*x-amz-date[^,]*, Signature=[0-9a-f]{64}$`));
      assert.ok(!r.url.includes("X-Amz-Signature"), r.url);
    }
    // "Remember on this device": the page URL never holds a secret; a reload re-opens from localStorage.
    for (const t of COMPARED) {
      const got = await dataRows(page, `s3://${BUCKET}/demo`, t);
      assert.equal(got.total, want[t].total, t);
      assert.deepEqual(got.rows, want[t].rows, t);
      assert.ok(!page.url().includes(encodeURIComponent(KEYS.secret)) && !page.url().includes(KEYS.secret));
    }
    await shot(page, "s3-03-data");
    // The signatures are right (botocore recomputes them): a listing, a whole read, and a
    // ranged read if the reader made one.
    const all = requests.filter((r) => r.method !== "OPTIONS");
    const list = all.find((r) => r.url.includes("list-type=2"));
    const read = all.find((r) => r.method === "GET" && !r.url.includes("?") && !r.headers.range);
    assert.ok(list && read, `a listing and an object read were signed: ${all.map((r) => r.url).slice(0, 5).join(", ")}`);
    const sample = [list, read, all.find((r) => r.headers.range)].filter(Boolean);
    const verify = startChild(PYTHON, ["-c", VERIFY_SIGV4, JSON.stringify({ key: KEYS.id, secret: KEYS.secret, requests: sample })]);
    assert.equal(await new Promise((resolve) => verify.child.on("exit", resolve)), 0, verify.log());
    // The uploaded corpus table (not part of the demo) shows the reference implementation's rows.
    const expected = readFileSync(`${EXPECTED}/${CORPUS_TABLE}/snapshot-2.jsonl`, "utf8")
      .split("\n")
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l))
      .map((r) => `${r.id}|${r.v}`)
      .sort();
    const corpus = await dataRows(page, `s3://${BUCKET}/corpus`, CORPUS_TABLE);
    assert.equal(corpus.total, `${expected.length} rows`);
    assert.deepEqual(corpus.rows.slice().sort(), expected);
    await shot(page, "s3-04-corpus-table");

    // Forget: the stored settings are gone, so a reload has no keys.
    const stored = await page.evaluate(() => localStorage.getItem("lakescope-s3-connection"));
    assert.ok(stored?.includes(KEYS.id), "remembered settings are in localStorage");
    await page.getByTestId("s3-forget").click();
    assert.equal(await page.evaluate(() => localStorage.getItem("lakescope-s3-connection")), null);
    assert.equal(await page.getByTestId("s3-secret-key").inputValue(), "");
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("S3 through `lakescope presign-server`: presigned URLs only, no keys in the browser", async () => {
  const want = await demoRows();
  const { page, problems, requests, close } = await newPage();
  try {
    await page.goto(BASE);
    await page.getByTestId("catalog-tree").waitFor({ timeout: 60_000 });
    await fillS3(page, `s3://${BUCKET}/demo`, { auth: "presign" });
    await page.getByTestId("s3-open").click();
    await connected(page, demoTables().length);
    assert.deepEqual((await tableNames(page)).sort(), demoTables());
    const t = "shop.orders";
    await page.getByRole("button", { name: "orders", exact: true }).click();
    await page.getByTestId("tab-data").click();
    await page.getByTestId("row-total").filter({ hasText: want[t].total }).waitFor({ timeout: 60_000 });
    assert.deepEqual(await gridRows(page), want[t].rows);
    await shot(page, "s3-05-presigned");
    const toBucket = requests.filter((r) => r.method !== "OPTIONS");
    assert.ok(toBucket.length > 0);
    for (const r of toBucket) {
      assert.equal(r.headers.authorization, undefined, r.url);
      assert.match(r.url, /[?&]X-Amz-Signature=[0-9a-f]{64}/);
      assert.match(r.url, new RegExp(`X-Amz-Credential=${KEYS.id}%2F`));
    }
    assert.equal(await page.evaluate(() => localStorage.getItem("lakescope-s3-connection")), null);
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("OPFS: an empty warehouse, and a copy of the demo lake that shows the same rows", async () => {
  const want = await demoRows();
  const { page, problems, close } = await newPage();
  try {
    await page.goto(new URL("?warehouse=opfs://nothing-here", BASE).href);
    const missing = page.getByTestId("catalog-error");
    await missing.waitFor({ timeout: 30_000 });
    assert.match(await missing.textContent(), /no warehouse opfs:\/\/nothing-here in this browser/);

    await page.getByTestId("warehouse-uri").fill("opfs://empty-lake");
    await page.getByTestId("opfs-create").click();
    await page.getByTestId("catalog-empty").waitFor({ timeout: 30_000 });
    assert.match(await page.getByTestId("connection-status").textContent(), /^opfs:\/\/empty-lake\/ · 0 databases · 0 tables$/);

    await page.getByTestId("demo-button").click();
    await connected(page, demoTables().length);
    await page.getByTestId("opfs-button").click();
    assert.equal(await page.getByTestId("warehouse-uri").inputValue(), "opfs://my-lake");
    await page.getByTestId("opfs-copy-demo").click();
    const files = JSON.parse(readFileSync(`${DEMO}/_lakescope_index.json`, "utf8")).files.length;
    await page
      .getByTestId("opfs-status")
      .filter({ hasText: new RegExp(`^Copied ${files} objects`) })
      .waitFor({ timeout: 120_000 })
      .catch(async (e) => {
        await shot(page, "failed-opfs-copy");
        throw new Error(`copy: ${await page.getByTestId("opfs-status").textContent()}`, { cause: e });
      });
    await connected(page, demoTables().length);
    assert.deepEqual((await tableNames(page)).sort(), demoTables());
    assert.match(await page.getByTestId("connection-status").textContent(), /^opfs:\/\/my-lake\//);
    await shot(page, "opfs-01-copied");
    for (const t of COMPARED) {
      const got = await dataRows(page, "opfs://my-lake", t);
      assert.equal(got.total, want[t].total, t);
      assert.deepEqual(got.rows, want[t].rows, t);
    }
    await shot(page, "opfs-02-data");
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("S3 errors in plain words: CORS rules for another site, a missing bucket", async () => {
  const { page, close } = await newPage();
  try {
    await page.goto(BASE);
    await page.getByTestId("catalog-tree").waitFor({ timeout: 60_000 });
    await fillS3(page, "s3://elsewhere/w", { auth: "keys" });
    await page.getByTestId("s3-open").click();
    const error = page.getByTestId("catalog-error");
    await error.waitFor({ timeout: 90_000 });
    const cors = await error.textContent();
    assert.match(cors, /CORS rules do not allow this page's origin/);
    assert.ok(cors.includes(ORIGIN), cors);
    assert.ok(!cors.includes(KEYS.secret), "no secret in messages");
    await shot(page, "s3-06-cors-error");

    await fillS3(page, "s3://no-such-bucket/w", { auth: "keys" });
    await page.getByTestId("s3-open").click();
    await page.getByTestId("catalog-error").filter({ hasText: /no-such-bucket/ }).waitFor({ timeout: 90_000 });
    const text = await page.getByTestId("catalog-error").textContent();
    assert.match(text, /does not exist|CORS/);
    await shot(page, "s3-07-missing-bucket");
  } finally {
    await close();
  }
});
