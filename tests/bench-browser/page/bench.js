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

const readers = {
  /** lakescope's wasm core: the table's latest snapshot over HTTP, batch by batch (memory_budget: bytes of fetched file data, or none). */
  async lakescope({ warehouse, table, budget }) {
    const mod = await import(/* @vite-ignore */ `${location.origin}/pkg/lakescope_bench_wasm.js`);
    await mod.default();
    const before = mod.memoryBytes();
    const t = performance.now();
    const out = JSON.parse(await mod.scanTable(warehouse, table, budget ?? undefined));
    return { ms: performance.now() - t, rows: out.rows, checksum: out.checksum, splits: out.splits,
      memory_before: before, memory_bytes: mod.memoryBytes() };
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
