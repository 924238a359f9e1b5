// The readers of the browser benchmark, one per case: count rows and touch every column of the same Parquet files.
import * as duckdb from "@duckdb/duckdb-wasm";
import { parquetMetadataAsync, parquetRead, asyncBufferFromUrl } from "hyparquet";
import { compressors } from "hyparquet-compressors";
import initParquetWasm, { readParquet } from "parquet-wasm/esm/parquet_wasm.js";
import { tableFromIPC } from "apache-arrow";

const NM = "/nm/";
const num = (v) => (typeof v === "bigint" ? Number(v) : typeof v === "number" ? v : 0);

/** Sum of a numeric column, byte length of a string column, non-null count otherwise (like lakescope's checksum). */
function touchArrowVector(vector) {
  let check = 0;
  for (const data of vector.data) {
    const t = data.type.typeId;
    if (data.valueOffsets && data.values instanceof Uint8Array && (t === 5 || t === 4)) {  // Utf8, Binary
      const o = data.valueOffsets;
      check += Number(o[o.length - 1]) - Number(o[0]);
    } else if (data.values && ArrayBuffer.isView(data.values) && (t === 2 || t === 3)) {  // Int, Float
      const v = data.values;
      const nulls = data.nullCount > 0;
      if (v instanceof BigInt64Array || v instanceof BigUint64Array) {
        for (let i = 0; i < data.length; i++) if (!nulls || data.getValid(i)) check += Number(v[i]);
      } else {
        for (let i = 0; i < data.length; i++) if (!nulls || data.getValid(i)) check += v[i];
      }
    } else {
      check += data.length - data.nullCount;
    }
  }
  return check;
}

/**
 * Copies the files of `table` (`db.table`) listed in the index of the warehouse at `warehouse` into the folder `folder`
 * of the Origin Private File System (not timed); returns the OPFS warehouse's URL, `opfs://folder/`.
 */
async function copyToOpfs(warehouse, table, folder) {
  const index = await (await fetch(`${warehouse}_lakescope_index.json`)).json();
  const prefix = `${table.replace(".", ".db/")}/`;
  const root = await (await navigator.storage.getDirectory()).getDirectoryHandle(folder, { create: true });
  for (const { path } of index.files.filter((f) => f.path.startsWith(prefix))) {
    const parts = path.split("/");
    let dir = root;
    for (const part of parts.slice(0, -1)) dir = await dir.getDirectoryHandle(part, { create: true });
    const writable = await (await dir.getFileHandle(parts.at(-1), { create: true })).createWritable();
    await writable.write(await (await fetch(warehouse + path)).arrayBuffer());
    await writable.close();
  }
  return `opfs://${folder}/`;
}

/** Reads split `index` of `table`'s latest snapshot once with the bench module `mod` (untimed warm-up). */
async function warmUp(mod, warehouse, table, index) {
  const { tickets } = JSON.parse(await mod.planShares(warehouse, table, undefined, 1));
  await mod.touchShare(JSON.stringify(tickets[index % tickets.length]));
}

const readers = {
  /**
   * lakescope's wasm core: the table's latest snapshot over HTTP (with `opfs`: copied into the browser's OPFS first, and
   * read from there), batch by batch (memory_budget: bytes of fetched file data, or none). With `warm`, one split is read
   * first, untimed, as a pool worker's warm-up does.
   */
  async lakescope({ warehouse, table, budget, opfs, warm }) {
    if (opfs) warehouse = await copyToOpfs(warehouse, table, "bench");
    const mod = await import(/* @vite-ignore */ `${location.origin}/pkg/lakescope_bench_wasm.js`);
    await mod.default();
    if (warm) await warmUp(mod, warehouse, table, 0);
    const before = mod.memoryBytes();
    const t = performance.now();
    const out = JSON.parse(await mod.scanTable(warehouse, table, budget ?? undefined));
    return { ms: performance.now() - t, rows: out.rows, checksum: out.checksum, splits: out.splits,
      memory_before: before, memory_bytes: mod.memoryBytes() };
  },

  /**
   * lakescope's wasm core on a pool of `workers` Web Workers (P8): each worker is an instance of the same compiled module
   * (posted, not downloaded again); the page plans the latest snapshot, every worker plans that snapshot itself and reads
   * the splits it is handed one at a time (the next when it answers), touching every column. Timed from the page's plan
   * to the last split's answer; starting the workers (instantiating the module) is timed apart, as `startup_ms`. With
   * `opfs`, the table is copied into the browser's OPFS first (not timed) and read from there. With `warm`, each worker
   * first reads one split, untimed: V8 compiles a wasm function with its baseline tier on its first call and the hot ones
   * again with its optimizing tier on background threads, which a first read pays for (≈ 0.5 s of pk_upsert's 1.5 s) and
   * which a pool kept for the page's life pays once.
   */
  async lakescopePool({ warehouse, table, workers, opfs, warm, pieces }) {
    if (opfs) warehouse = await copyToOpfs(warehouse, table, "bench");
    const glue = `${location.origin}/pkg/lakescope_bench_wasm.js`;
    const mod = await import(/* @vite-ignore */ glue);
    const module = await WebAssembly.compileStreaming(fetch(`${location.origin}/pkg/lakescope_bench_wasm_bg.wasm`));
    await mod.default({ module_or_path: module });
    const started = performance.now();
    const pool = await Promise.all(Array.from({ length: workers }, async () => {
      const worker = new Worker(`${location.origin}/scan-worker.js`, { type: "module" });
      const ask = (message) => new Promise((resolve, reject) => {
        worker.onmessage = ({ data }) => (data.ok ? resolve(data.out) : reject(new Error(data.error)));
        worker.onerror = (e) => reject(new Error(e.message));
        worker.postMessage(message);
      });
      await ask({ op: "init", glue, module });
      return { worker, ask, planned: false, splits: 0, ms: 0, memory_bytes: 0 };
    }));
    if (warm) {
      await Promise.all(pool.map(async (w, i) => {
        const { tickets } = await w.ask({ op: "plan", warehouse, table, readers: 1 });
        await w.ask({ op: "touch", ticket: tickets[i % tickets.length] });
      }));
    }
    const startup_ms = performance.now() - started;
    const t = performance.now();
    // Planned for one reader: whole files. With `pieces`, for the workers (`take_splits_for(workers)`: the last large
    // append files cut into pieces of rows where that evens them out); over HTTP each piece's footer, offset index and
    // page ranges are requests of their own, and the pieces were no faster (docs/benchmarks.md, P8 "Browser").
    const readers = pieces ? workers : 1;
    const plan = JSON.parse(await mod.planShares(warehouse, table, undefined, readers));
    const queue = [...plan.tickets];
    let rows = 0, checksum = 0, batches = 0;
    await Promise.all(pool.map(async (w) => {
      for (let ticket = queue.shift(); ticket; ticket = queue.shift()) {
        if (!w.planned) {
          await w.ask({ op: "plan", warehouse, table, snapshot: plan.snapshot ?? undefined, readers });
          w.planned = true;
        }
        const out = await w.ask({ op: "touch", ticket });
        rows += out.rows; checksum += out.checksum; batches += out.batches;
        w.splits += 1; w.ms += out.ms; w.memory_bytes = out.memory_bytes;
      }
    }));
    const ms = performance.now() - t;
    for (const w of pool) w.worker.terminate();
    return { ms, rows, checksum, batches, splits: plan.tickets.length, workers, startup_ms, plan_ms: plan.ms,
      per_worker: pool.map((w) => ({ splits: w.splits, busy_ms: Math.round(w.ms), memory_bytes: w.memory_bytes })) };
  },

  /** DuckDB-Wasm (single-threaded eh/mvp bundle): one aggregate query over read_parquet of the files. */
  async duckdb({ files }) {
    const bundle = await duckdb.selectBundle({
      mvp: { mainModule: `${NM}@duckdb/duckdb-wasm/dist/duckdb-mvp.wasm`, mainWorker: `${NM}@duckdb/duckdb-wasm/dist/duckdb-browser-mvp.worker.js` },
      eh: { mainModule: `${NM}@duckdb/duckdb-wasm/dist/duckdb-eh.wasm`, mainWorker: `${NM}@duckdb/duckdb-wasm/dist/duckdb-browser-eh.worker.js` },
    });
    const db = new duckdb.AsyncDuckDB(new duckdb.VoidLogger(), new Worker(bundle.mainWorker));
    await db.instantiate(bundle.mainModule);
    const conn = await db.connect();
    const t = performance.now();
    const names = [];
    for (const [i, url] of files.entries()) {
      names.push(`f${i}.parquet`);
      await db.registerFileURL(names[i], url, duckdb.DuckDBDataProtocol.HTTP, false);
    }
    const src = `read_parquet([${names.map((n) => `'${n}'`).join(",")}])`;
    const schema = (await conn.query(`DESCRIBE SELECT * FROM ${src}`)).toArray().map((r) => [r.column_name, r.column_type]);
    const terms = schema.map(([c, ty]) =>
      /INT|DOUBLE|FLOAT|DECIMAL/.test(ty) ? `coalesce(sum("${c}")::DOUBLE, 0)` : /VARCHAR|BLOB/.test(ty) ? `coalesce(sum(octet_length("${c}")), 0)::DOUBLE` : `count("${c}")::DOUBLE`);
    const row = (await conn.query(`SELECT count(*)::DOUBLE AS n, ${terms.join(" + ")} AS checksum FROM ${src}`)).toArray()[0];
    const ms = performance.now() - t;
    await conn.close();
    await db.terminate();
    return { ms, rows: Number(row.n), checksum: Number(row.checksum), bundle: bundle.mainModule.split("/").pop() };
  },

  /** parquet-wasm: each file fetched whole, decoded to Arrow in wasm, handed to Arrow JS as IPC and touched. */
  async parquetWasm({ files }) {
    await initParquetWasm(`${NM}parquet-wasm/esm/parquet_wasm_bg.wasm`);
    const t = performance.now();
    let rows = 0, checksum = 0;
    for (const url of files) {
      const bytes = new Uint8Array(await (await fetch(url)).arrayBuffer());
      const table = tableFromIPC(readParquet(bytes).intoIPCStream());
      rows += table.numRows;
      for (let i = 0; i < table.numCols; i++) checksum += touchArrowVector(table.getChildAt(i));
    }
    return { ms: performance.now() - t, rows, checksum };
  },

  /** hyparquet + hyparquet-compressors: each file read through Range requests, column chunks touched. */
  async hyparquet({ files }) {
    const t = performance.now();
    let rows = 0, checksum = 0;
    for (const url of files) {
      const file = await asyncBufferFromUrl({ url });
      const metadata = await parquetMetadataAsync(file);
      rows += Number(metadata.num_rows);
      await parquetRead({ file, metadata, compressors, onChunk({ columnData }) {
        for (const v of columnData) {
          if (typeof v === "string") checksum += v.length;  // UTF-16 units: the bytes for these ASCII columns
          else if (v !== null && v !== undefined) checksum += typeof v === "number" || typeof v === "bigint" ? num(v) : 1;
        }
      } });
    }
    return { ms: performance.now() - t, rows, checksum };
  },
};

window.benchCase = async (name, args) => readers[name](args);
window.benchReady = true;
