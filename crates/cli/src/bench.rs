//! `lakescope bench-read`: a full read that counts rows and touches every column, printing one JSON line;
//! `lakescope bench-plan`: the planning of a scan (manifest replay), or the read of a system
//! table (a tab's rows), timed run by run;
//! `lakescope bench-write`: the write of `PerfTool writepk` (perf.pk_upsert) through lakescope's writer.

use arrow_array::builder::StringBuilder;
use arrow_array::{ArrayRef, Float64Array, Int32Array, Int64Array, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use lakescope_engine::parallel_scan::{touch_table, CatalogOpener};
use lakescope_engine::scan::parse_filter;
use lakescope_engine::write::{
    definition_from_arrow, insert_into_table, Definition as TableDefinition, SystemEnv,
};
use lakescope_engine::{Catalog, TableRef};
use std::num::NonZeroUsize;
use std::sync::Arc;

/// Streams the whole table (latest snapshot or `snapshot`) batch by batch through the
/// engine's checksum ([`touch_table`]), its splits read on `threads` threads (each opening the
/// catalog with `opener`), and returns the JSON line to print (rows, checksum, threads,
/// in-process seconds).
pub async fn bench_read(
    catalog: &Catalog,
    opener: Arc<dyn CatalogOpener>,
    table_ref: &TableRef,
    snapshot: Option<i64>,
    threads: NonZeroUsize,
    started: std::time::Instant,
) -> Result<serde_json::Value, String> {
    let touched = touch_table(catalog, opener, table_ref, snapshot, threads)
        .await
        .map_err(|e| e.to_string())?;
    Ok(serde_json::json!({
        "reader": concat!("lakescope-", env!("CARGO_PKG_VERSION")),
        "threads": threads.get(),
        "rows": touched.rows,
        "batches": touched.batches,
        "seconds": (started.elapsed().as_secs_f64() * 1000.0).round() / 1000.0,
        "checksum": touched.checksum,
    }))
}

/// Plans a scan of `snapshot` (default: the latest) `runs` times, each on a freshly opened
/// table (no manifest decoded by an earlier run), with the predicate `filter` if given; returns
/// the JSON line to print (live files and splits kept, manifests skipped, milliseconds per run).
pub async fn bench_plan(
    catalog: &Catalog,
    table_ref: &TableRef,
    snapshot: Option<i64>,
    filter: Option<&str>,
    runs: usize,
) -> Result<serde_json::Value, String> {
    let err = |e: lakescope_engine::Error| e.to_string();
    let predicate = filter.map(parse_filter).transpose().map_err(err)?;
    let (mut millis, mut last) = (Vec::new(), None);
    for _ in 0..runs.max(1) {
        let started = std::time::Instant::now();
        let planned = catalog
            .plan_scan(table_ref, snapshot, predicate.as_ref())
            .await
            .map_err(err)?
            .ok_or_else(|| format!("{table_ref} has no snapshot"))?;
        millis.push(millis_since(started));
        last = Some(planned);
    }
    let Some(planned) = last else {
        return Err("no run".into());
    };
    Ok(serde_json::json!({
        "planner": concat!("lakescope-", env!("CARGO_PKG_VERSION")),
        "snapshot": planned.snapshot,
        "files": planned.files,
        "splits": planned.splits,
        "pruned_manifests": planned.pruned_manifests,
        "median_millis": median(&millis),
        "millis": millis,
    }))
}

/// Reads every row of the system table `table_ref` names (`db.t$files`: what a tab of the app
/// shows) `runs` times, each through a freshly opened table, as `PerfTool systable` does; returns
/// the JSON line to print (rows, milliseconds per run, in-process: no output).
pub async fn bench_system_table(
    catalog: &Catalog,
    table_ref: &TableRef,
    runs: usize,
) -> Result<serde_json::Value, String> {
    let (mut millis, mut rows) = (Vec::new(), 0);
    for _ in 0..runs.max(1) {
        let started = std::time::Instant::now();
        let read = catalog
            .scan(table_ref, &lakescope_engine::scan::ScanRequest::default())
            .await
            .map_err(|e| e.to_string())?;
        millis.push(millis_since(started));
        rows = read.batches.iter().map(|b| b.num_rows()).sum::<usize>();
    }
    Ok(serde_json::json!({
        "reader": concat!("lakescope-", env!("CARGO_PKG_VERSION")),
        "table": table_ref.to_string(),
        "rows": rows,
        "median_millis": median(&millis),
        "millis": millis,
    }))
}

/// Milliseconds since `started`, to a tenth.
fn millis_since(started: std::time::Instant) -> f64 {
    (started.elapsed().as_secs_f64() * 10_000.0).round() / 10.0
}

/// The median of the runs' milliseconds (the upper one of an even count; 0 without runs).
fn median(millis: &[f64]) -> f64 {
    let mut sorted = millis.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted.get(sorted.len() / 2).copied().unwrap_or(0.0)
}

/// The 20 words of `PerfTool.java` (`WORDS`).
const WORDS: [&str; 20] = [
    "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliett",
    "kilo", "lima", "mike", "november", "oscar", "papa", "quebec", "romeo", "sierra", "tango",
];

/// `java.util.Random` (48-bit LCG), bit-exact, so the generated rows equal `PerfTool writepk`'s.
pub struct JavaRandom(u64);

impl JavaRandom {
    const MULT: u64 = 0x5_DEEC_E66D;
    const MASK: u64 = (1 << 48) - 1;

    pub fn new(seed: i64) -> Self {
        Self((seed as u64 ^ Self::MULT) & Self::MASK)
    }

    fn next(&mut self, bits: u32) -> i32 {
        self.0 = (self.0.wrapping_mul(Self::MULT).wrapping_add(0xB)) & Self::MASK;
        (self.0 >> (48 - bits)) as i64 as i32
    }

    /// `Random.nextDouble()`.
    pub fn next_double(&mut self) -> f64 {
        let hi = (self.next(26) as i64) << 27;
        let lo = self.next(27) as i64;
        (hi + lo) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// `Random.nextInt(bound)` for `bound > 0`.
    pub fn next_int(&mut self, bound: i32) -> i32 {
        if bound & (bound - 1) == 0 {
            return ((bound as i64 * self.next(31) as i64) >> 31) as i32;
        }
        loop {
            let bits = self.next(31);
            let val = bits % bound;
            if bits.wrapping_sub(val).wrapping_add(bound - 1) >= 0 {
                return val;
            }
        }
    }
}

/// The columns of the table `PerfTool writepk` creates (`id BIGINT NOT NULL`, `ver INT`,
/// `qty BIGINT`, `price DOUBLE`, `name STRING`, `note STRING`), as its rows are generated.
fn pk_upsert_schema() -> SchemaRef {
    let field = Field::new;
    Arc::new(Schema::new(vec![
        field("id", DataType::Int64, false),
        field("ver", DataType::Int32, true),
        field("qty", DataType::Int64, true),
        field("price", DataType::Float64, true),
        field("name", DataType::Utf8, true),
        field("note", DataType::Utf8, true),
    ]))
}

/// The table `PerfTool writepk` creates: [`pk_upsert_schema`] with primary key `id` and its
/// options.
pub fn pk_upsert_definition() -> Result<TableDefinition, String> {
    let options = [
        ("bucket", "4"),
        ("file.format", "parquet"),
        ("file.compression", "zstd"),
        ("write-only", "true"),
        ("write-buffer-size", "1gb"),
        ("target-file-size", "1gb"),
        ("write-buffer-spillable", "false"),
    ];
    definition_from_arrow(&pk_upsert_schema(), &["id"], &options).map_err(|e| e.to_string())
}

/// The rows of commit `commit` of `PerfTool writepk` (keys `k < keys` with `k % 5` in
/// `{commit % 5, (commit + 1) % 5}`, in key order), generated lazily in batches of `batch_rows`.
pub struct PkUpsertRows {
    commit: i32,
    keys: i64,
    next_key: i64,
    random: JavaRandom,
    batch_rows: usize,
    schema: SchemaRef,
}

impl PkUpsertRows {
    pub fn new(commit: i32, keys: i64, batch_rows: usize) -> Self {
        let mut rows = Self {
            commit,
            keys,
            next_key: 0,
            random: JavaRandom::new(1000 + commit as i64),
            batch_rows: batch_rows.max(1),
            schema: pk_upsert_schema(),
        };
        rows.advance();
        rows
    }

    fn selected(&self, k: i64) -> bool {
        let m = k % 5;
        m == (self.commit % 5) as i64 || m == ((self.commit + 1) % 5) as i64
    }

    fn advance(&mut self) {
        while self.next_key < self.keys && !self.selected(self.next_key) {
            self.next_key += 1;
        }
    }
}

impl Iterator for PkUpsertRows {
    type Item = RecordBatch;

    fn next(&mut self) -> Option<RecordBatch> {
        use std::fmt::Write;
        if self.next_key >= self.keys {
            return None;
        }
        let n = self.batch_rows;
        let (mut id, mut ver, mut qty, mut price) = (
            Vec::with_capacity(n),
            Vec::with_capacity(n),
            Vec::with_capacity(n),
            Vec::with_capacity(n),
        );
        let mut name = StringBuilder::with_capacity(n, n * 16);
        let mut note = StringBuilder::with_capacity(n, n * 24);
        let cc = self.commit;
        while id.len() < n && self.next_key < self.keys {
            let key = self.next_key;
            self.next_key += 1;
            self.advance();
            // Java evaluates GenericRow.of's arguments left to right: nextDouble, then 2 nextInt.
            id.push(key);
            ver.push(cc);
            qty.push(key * 31 + cc as i64);
            price.push(self.random.next_double() * 1000.0);
            let _ = write!(name, "{}-{}", WORDS[(key % 20) as usize], key);
            name.append_value("");
            let a = WORDS[self.random.next_int(20) as usize];
            let b = WORDS[self.random.next_int(20) as usize];
            let _ = write!(note, "commit{cc} {a} {b}");
            note.append_value("");
        }
        let columns: Vec<ArrayRef> = vec![
            Arc::new(Int64Array::from(id)),
            Arc::new(Int32Array::from(ver)),
            Arc::new(Int64Array::from(qty)),
            Arc::new(Float64Array::from(price)),
            Arc::new(name.finish()),
            Arc::new(note.finish()),
        ];
        Some(RecordBatch::try_new(self.schema.clone(), columns).expect("columns match the schema"))
    }
}

/// `lakescope bench-write`: creates `table_ref` as `PerfTool writepk` does and writes its
/// `commits` upsert commits of `keys` keys through lakescope's writer and committer
/// ([`insert_into_table`]), one commit at a time (only one commit's rows are in memory);
/// returns the JSON line to print.
pub async fn bench_write(
    catalog: &Catalog,
    table_ref: &TableRef,
    keys: i64,
    commits: i32,
    batch_rows: usize,
    started: std::time::Instant,
) -> Result<serde_json::Value, String> {
    let s = |e: lakescope_engine::Error| e.to_string();
    let env = SystemEnv::default();
    let write_start = std::time::Instant::now();
    catalog
        .create_table(
            &table_ref.database,
            &table_ref.table,
            &pk_upsert_definition()?,
        )
        .await
        .map_err(s)?;
    let (mut rows, mut commit_seconds) = (0u64, Vec::new());
    for commit in 0..commits {
        let t0 = std::time::Instant::now();
        let table = catalog.open_table(table_ref).await.map_err(s)?;
        let batches: Vec<RecordBatch> = PkUpsertRows::new(commit, keys, batch_rows).collect();
        rows += batches.iter().map(|b| b.num_rows() as u64).sum::<u64>();
        insert_into_table(&env, &table, &batches, None)
            .await
            .map_err(s)?;
        commit_seconds.push((t0.elapsed().as_secs_f64() * 1000.0).round() / 1000.0);
    }
    let write_seconds = write_start.elapsed().as_secs_f64();
    // Bytes of the data files of the last snapshot (what the commits wrote: no compaction).
    let plan = catalog
        .plan_scan(table_ref, None, None)
        .await
        .map_err(s)?
        .ok_or_else(|| "no snapshot written".to_string())?;
    let (files, bytes) = (plan.files, plan.data_bytes);
    let round = |v: f64, d: i32| (v * 10f64.powi(d)).round() / 10f64.powi(d);
    Ok(serde_json::json!({
        "writer": concat!("lakescope-", env!("CARGO_PKG_VERSION")),
        "rows": rows,
        "commits": commits,
        "snapshot": plan.snapshot,
        "data_files": files,
        "data_bytes": bytes,
        "seconds": round(write_seconds, 3),
        "rows_per_s": round(rows as f64 / write_seconds, 0),
        "mb_per_s": round(bytes as f64 / 1e6 / write_seconds, 2),
        "commit_seconds": commit_seconds,
        "process_seconds": round(started.elapsed().as_secs_f64(), 3),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::cast::AsArray;
    use arrow_array::types::Int64Type;

    #[test]
    fn java_random_is_bit_exact() {
        // Values printed by java.util.Random (OpenJDK 17).
        let mut r = JavaRandom::new(1000);
        assert_eq!(r.next_double() * 1000.0, 710.1849056320707);
        assert_eq!((r.next_int(20), r.next_int(20)), (16, 4));
        let mut q = JavaRandom::new(1004);
        let want = [
            (4604568768974526533u64, 2, 0),
            (4597368495260753672, 0, 2),
            (4606887454280474738, 14, 4),
        ];
        for (bits, a, b) in want {
            assert_eq!(q.next_double().to_bits(), bits);
            assert_eq!((q.next_int(20), q.next_int(7)), (a, b));
        }
    }

    #[test]
    fn pk_upsert_rows_follow_perftool() {
        let batches: Vec<RecordBatch> = PkUpsertRows::new(4, 23, 4).collect();
        let ids: Vec<i64> = batches
            .iter()
            .flat_map(|b| b.column(0).as_primitive::<Int64Type>().values().to_vec())
            .collect();
        // commit 4 takes k % 5 in {4, 0}
        assert_eq!(ids, vec![0, 4, 5, 9, 10, 14, 15, 19, 20]);
        let first = &batches[0];
        assert_eq!(first.column(4).as_string::<i32>().value(1), "echo-4");
        assert_eq!(
            first.column(2).as_primitive::<Int64Type>().value(1),
            4 * 31 + 4
        );
        assert!(first
            .column(5)
            .as_string::<i32>()
            .value(0)
            .starts_with("commit4 "));
    }

    /// P10 (docs/benchmarks.md): the data files of `perf.pk_upsert` stay within 5% of Java
    /// Paimon 0.9's bytes for the same rows. Java's bytes: `java -cp "$LAKE_TOOLS/java/lib/*:CLASSES"
    /// PerfTool writepk WH 50000 5` (scripts/bench/PerfTool.java; 100,000 rows, 20 files of
    /// ~5,000 rows) wrote 20 files of 1,821,349 bytes in all (2026-12-03); lakescope wrote
    /// 2,769,467 (1.52x) before choosing dictionaries as parquet-mr does (issue 27), 1,812,124
    /// after.
    #[test]
    fn pk_upsert_bytes_stay_within_5_percent_of_java() {
        const JAVA_BYTES: u64 = 1_821_349;
        let dir = tempfile::tempdir().unwrap();
        let catalog = Catalog::new(std::rc::Rc::new(lakescope_storage::LocalStore::new(
            dir.path(),
        )));
        let table: TableRef = "perf.pk_upsert".parse().unwrap();
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let line = rt
            .block_on(bench_write(
                &catalog,
                &table,
                50_000,
                5,
                65_536,
                std::time::Instant::now(),
            ))
            .unwrap();
        assert_eq!(line["rows"], 100_000);
        assert_eq!(line["data_files"], 20);
        let bytes = line["data_bytes"].as_u64().unwrap();
        assert!(
            bytes * 100 <= JAVA_BYTES * 105,
            "{bytes} bytes of data files, Java Paimon 0.9 writes {JAVA_BYTES} (limit 1.05x)"
        );
    }
}
