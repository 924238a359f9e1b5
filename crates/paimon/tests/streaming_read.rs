//! Streaming merge-on-read: a merge fed batch by batch equals the merge of whole runs for every
//! merge engine and holds few input batches; reads under a memory budget (row group by row
//! group with ranged requests) give the rows of unbudgeted reads; a read for a viewer's first
//! rows (`first_batch_bytes`) fetches a first piece of an append split, not its whole files.

use std::collections::BTreeMap;
use std::rc::Rc;
use std::sync::Arc;

use arrow_array::{ArrayRef, Int32Array, Int64Array, Int8Array, RecordBatch, StringArray};
use arrow_schema::{DataType as ArrowType, Field, Schema, SchemaRef};
use lakescope_paimon::merge::{MergeReader, MergeSettings, MergeStep};
use lakescope_paimon::spec::types::{DataField, DataType, TypeKind};
use lakescope_paimon::table::Table;
use lakescope_paimon::table_read::{read_snapshot, ReadRequest, SnapshotReader};
use lakescope_paimon::write::schema::TableDefinition;
use lakescope_paimon::write::FixedEnv;
use lakescope_storage::{IoCounts, IoMeter, MemoryStore, MeteredStore, ObjectStore};
use lakescope_test_support::tables::{batch, create, rows, string, t, write_and_commit};

fn field(id: i32, name: &str, kind: TypeKind, nullable: bool) -> DataField {
    DataField {
        id,
        name: name.into(),
        data_type: DataType { nullable, kind },
        description: None,
    }
}

fn fields() -> Vec<DataField> {
    vec![
        field(0, "k", TypeKind::Int, false),
        field(1, "v", TypeKind::VarChar(u32::MAX >> 1), true),
        field(2, "n", TypeKind::Int, true),
    ]
}

fn input_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("k", ArrowType::Int32, false),
        Field::new("v", ArrowType::Utf8, true),
        Field::new("n", ArrowType::Int32, true),
        Field::new("_SEQUENCE_NUMBER", ArrowType::Int64, false),
        Field::new("_VALUE_KIND", ArrowType::Int8, false),
    ]))
}

/// A deterministic pseudo-random sequence (64-bit LCG).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, below: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % below
    }
}

/// Rows of one sorted run: (key, v, n, seq, kind), keys ascending (a key may repeat).
type Row = (i32, Option<String>, Option<i32>, i64, i8);

fn random_runs(rng: &mut Lcg, runs: usize, kinds: &[i8]) -> Vec<Vec<Row>> {
    (0..runs)
        .map(|r| {
            // A sorted run holds each key once (as Paimon's files do).
            let mut keys: Vec<i32> = (0..40).map(|_| rng.next(60) as i32).collect();
            keys.sort_unstable();
            keys.dedup();
            keys.into_iter()
                .enumerate()
                .map(|(i, k)| {
                    let v = (rng.next(4) > 0).then(|| format!("r{r}i{i}"));
                    let n = (rng.next(4) > 0).then(|| rng.next(100) as i32);
                    let kind = kinds[rng.next(kinds.len() as u64) as usize];
                    (k, v, n, (r * 1000 + i) as i64, kind)
                })
                .collect()
        })
        .collect()
}

fn to_batch(rows: &[Row]) -> RecordBatch {
    let cols: Vec<ArrayRef> = vec![
        Arc::new(Int32Array::from_iter_values(rows.iter().map(|r| r.0))),
        Arc::new(StringArray::from_iter(rows.iter().map(|r| r.1.clone()))),
        Arc::new(Int32Array::from_iter(rows.iter().map(|r| r.2))),
        Arc::new(Int64Array::from_iter_values(rows.iter().map(|r| r.3))),
        Arc::new(Int8Array::from_iter_values(rows.iter().map(|r| r.4))),
    ];
    RecordBatch::try_new(input_schema(), cols).unwrap()
}

fn opts(kv: &[(&str, &str)]) -> BTreeMap<String, String> {
    kv.iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// Merges `runs` fed in slices of 1–3 rows only when the merge asks; the output and the most
/// input batches held at once.
fn streamed(
    runs: &[Vec<Row>],
    options: &BTreeMap<String, String>,
    settings: MergeSettings,
    rng: &mut Lcg,
) -> (Vec<RecordBatch>, usize, usize) {
    let mut slices: Vec<std::collections::VecDeque<RecordBatch>> = runs
        .iter()
        .map(|run| {
            let mut out = std::collections::VecDeque::new();
            let mut at = 0;
            while at < run.len() {
                let n = (1 + rng.next(3) as usize).min(run.len() - at);
                out.push_back(to_batch(&run[at..at + n]));
                at += n;
            }
            out
        })
        .collect();
    let total = slices.iter().map(|s| s.len()).sum();
    let pk = vec!["k".to_string()];
    let mut merge = MergeReader::streaming(
        input_schema(),
        runs.len(),
        &fields(),
        &pk,
        options,
        settings,
    )
    .unwrap();
    let (mut out, mut most) = (Vec::new(), 0);
    loop {
        most = most.max(merge.live_batches());
        match merge.step().unwrap() {
            MergeStep::Batch(b) => out.push(b),
            MergeStep::Done => break,
            MergeStep::NeedInput(run) => match slices[run].pop_front() {
                Some(b) => merge.push_batch(run, b).unwrap(),
                None => merge.end_run(run).unwrap(),
            },
        }
    }
    (out, most, total)
}

#[test]
fn streamed_merge_equals_whole_runs_for_every_engine() {
    let all = [0i8, 1, 2, 3];
    let adds = [0i8, 2];
    // (name, table options, row kinds of the input, keep_deletes)
    type Case<'a> = (&'a str, BTreeMap<String, String>, &'a [i8], bool);
    let cases: Vec<Case> = vec![
        ("deduplicate", opts(&[]), &all, false),
        ("deduplicate keep deletes", opts(&[]), &all, true),
        (
            "deduplicate sequence.field",
            opts(&[("sequence.field", "n")]),
            &all,
            false,
        ),
        (
            "first-row",
            opts(&[("merge-engine", "first-row"), ("ignore-delete", "true")]),
            &all,
            false,
        ),
        (
            "partial-update",
            opts(&[("merge-engine", "partial-update")]),
            &adds,
            false,
        ),
        (
            "aggregation",
            opts(&[
                ("merge-engine", "aggregation"),
                ("fields.n.aggregate-function", "sum"),
                ("fields.v.aggregate-function", "last_non_null_value"),
            ]),
            &all,
            true,
        ),
    ];
    let pk = vec!["k".to_string()];
    let mut rng = Lcg(7);
    for (name, options, kinds, keep_deletes) in cases {
        for round in 0..5 {
            let runs = random_runs(&mut rng, 1 + round, kinds);
            let settings = MergeSettings {
                batch_size: 4,
                first_batch_size: None,
                keep_deletes,
            };
            let whole: Vec<Vec<RecordBatch>> = runs.iter().map(|r| vec![to_batch(r)]).collect();
            let expected = MergeReader::new(whole, &fields(), &pk, &options, settings)
                .unwrap()
                .collect::<Result<Vec<_>, _>>()
                .unwrap();
            let (got, most, total) = streamed(&runs, &options, settings, &mut rng);
            // Key order is the output order: compare unsorted lines.
            assert_eq!(lines(&got), lines(&expected), "{name}, {} runs", runs.len());
            assert!(got.iter().all(|b| b.num_rows() <= 4), "{name}: batch size");
            // Each run's current slice, plus the passed slices buffered output rows refer to
            // (at most batch_size rows, each from at most one row per run).
            let bound = runs.len() * (settings.batch_size + 1);
            assert!(
                most <= bound && most < total,
                "{name}: {most} input batches held at once (bound {bound}, {total} in all)"
            );
        }
    }
}

/// Rows as lines in output order (each batch's rows are in ascending key order, keys unique).
fn lines(batches: &[RecordBatch]) -> Vec<String> {
    let mut out = Vec::new();
    for b in batches {
        // `rows` sorts the lines as text; put them back in key order.
        let mut one = rows(std::slice::from_ref(b));
        one.sort_by_key(|l| l.split('|').next().and_then(|k| k.parse::<i64>().ok()));
        out.extend(one);
    }
    out
}

async fn table_with(def: TableDefinition, batches: Vec<RecordBatch>) -> Table {
    let store: Rc<dyn ObjectStore> = Rc::new(MemoryStore::new());
    let env = FixedEnv::new(1_700_000_000_000, 1);
    let table = create(&store, "db.db/t", &def, &env).await;
    for b in batches {
        write_and_commit(&table, &env, &[b], None, "test").await;
    }
    table
}

/// A table of `(id BIGINT, name STRING)` (primary key `id` when asked) holding `batches` (see
/// [`kv`]), one commit each.
async fn kv_table(
    primary_key: bool,
    options: BTreeMap<String, String>,
    batches: Vec<RecordBatch>,
) -> Table {
    let def = TableDefinition {
        columns: vec![
            ("id".to_string(), t(TypeKind::BigInt), None),
            ("name".to_string(), string(), None),
        ],
        primary_keys: if primary_key {
            vec!["id".into()]
        } else {
            Vec::new()
        },
        options,
        ..Default::default()
    };
    table_with(def, batches).await
}

fn kv(keys: std::ops::Range<i64>, tag: &str) -> RecordBatch {
    batch(vec![
        (
            "id",
            Arc::new(Int64Array::from_iter_values(keys.clone())) as ArrayRef,
        ),
        (
            "name",
            Arc::new(StringArray::from_iter_values(
                keys.map(|k| format!("{tag}{k}")),
            )),
        ),
    ])
}

async fn read(table: &Table, request: &ReadRequest) -> (Vec<String>, usize) {
    let snapshot = table.latest_snapshot().await.unwrap();
    let out = read_snapshot(table, snapshot.as_ref(), request)
        .await
        .unwrap();
    let most = out.batches.iter().map(|b| b.num_rows()).max().unwrap_or(0);
    (rows(&out.batches), most)
}

#[tokio::test]
async fn budgeted_reads_of_multi_row_group_files_equal_unbudgeted() {
    let small_groups = opts(&[("bucket", "1"), ("parquet.row-group.rows", "7")]);
    let pk_table = kv_table(
        true,
        small_groups.clone(),
        vec![kv(0..100, "a"), kv(50..150, "b"), kv(20..30, "c")],
    )
    .await;
    let mut append_options = small_groups.clone();
    append_options.insert("bucket".into(), "-1".into());
    let append_table = kv_table(false, append_options, vec![kv(0..100, "a"), kv(0..60, "b")]).await;
    // (`rowkind` is a view of primary-key tables.)
    for (table, expected_rows, kinds) in [
        (&pk_table, 150, &[false, true][..]),
        (&append_table, 160, &[false][..]),
    ] {
        for &with_row_kind in kinds {
            let unbudgeted = ReadRequest {
                with_row_kind,
                ..ReadRequest::default()
            };
            let (all, _) = read(table, &unbudgeted).await;
            assert_eq!(all.len(), expected_rows);
            for budget in [1, 2_000, 1 << 30] {
                let request = ReadRequest {
                    memory_budget: Some(budget),
                    ..unbudgeted.clone()
                };
                let (got, most) = read(table, &request).await;
                assert_eq!(got, all, "budget {budget}, row kind {with_row_kind}");
                assert!(most <= 8192);
            }
        }
    }
    // The merged output streams: the first batch comes before the split is fully read.
    let snapshot = pk_table.latest_snapshot().await.unwrap();
    let mut reader = SnapshotReader::open(
        &pk_table,
        snapshot.as_ref(),
        &ReadRequest {
            memory_budget: Some(1),
            ..ReadRequest::default()
        },
    )
    .await
    .unwrap();
    let first = reader.next_batch().await.unwrap().unwrap();
    assert!(first.num_rows() > 0);
}

/// Requests and bytes through `table`'s data files until the first batch of a read of `request`,
/// and every row of that read.
async fn first_batch_io_and_rows(table: &Table, request: &ReadRequest) -> (IoCounts, Vec<String>) {
    let meter = Arc::new(IoMeter::default());
    let store: Rc<dyn ObjectStore> =
        Rc::new(MeteredStore::new(table.store().clone(), meter.clone()));
    let metered = Table::open(store, "db.db/t").await.unwrap();
    let snapshot = metered.latest_snapshot().await.unwrap();
    let mut reader = SnapshotReader::open(&metered, snapshot.as_ref(), request)
        .await
        .unwrap();
    let planned = meter.read();
    let mut batches = vec![reader.next_batch().await.unwrap().unwrap()];
    let fetched = meter.read().since(&planned);
    while let Some(batch) = reader.next_batch().await {
        batches.push(batch.unwrap());
    }
    (fetched, rows(&batches))
}

/// Bytes fetched through `table`'s data files until the first batch of a read of `request`, and
/// every row of that read.
async fn first_batch_bytes_and_rows(table: &Table, request: &ReadRequest) -> (u64, Vec<String>) {
    let (io, rows) = first_batch_io_and_rows(table, request).await;
    (io.bytes_read, rows)
}

#[tokio::test]
async fn a_small_footer_prefetch_reads_a_small_file_in_pieces_with_the_same_rows() {
    // One file of a few KiB: the default footer request (64 KiB) fetches it whole.
    let table = kv_table(false, opts(&[("bucket", "-1")]), vec![kv(0..300, "row-")]).await;
    let first_piece = ReadRequest {
        first_batch_bytes: Some(1),
        ..ReadRequest::default()
    };
    let (whole, all) = first_batch_io_and_rows(&table, &first_piece).await;
    assert_eq!(all.len(), 300);
    assert_eq!(whole.requests, 1, "the footer request got the whole file");
    let request = ReadRequest {
        footer_prefetch: Some(64),
        ..first_piece
    };
    let (pieces, got) = first_batch_io_and_rows(&table, &request).await;
    assert_eq!(got, all, "the same rows");
    // The end of the file, the rest of the footer, then the first piece's pages.
    assert!(pieces.requests >= 3, "{pieces:?}");
    assert!(
        pieces.bytes_read < whole.bytes_read,
        "{pieces:?} vs {whole:?}"
    );
}

#[tokio::test]
async fn the_first_rows_of_an_append_table_wait_for_a_first_piece_not_whole_files() {
    // Two files of 10 row groups each, ~260 KB each: well over the footer request's 64 KiB
    // (sequential ids and unique names are written PLAIN, as Java does, and compress well).
    let options = opts(&[("bucket", "-1"), ("parquet.row-group.rows", "16000")]);
    let table = kv_table(
        false,
        options,
        vec![
            kv(0..160_000, "first-file-"),
            kv(0..160_000, "second-file-"),
        ],
    )
    .await;
    let (whole, all) = first_batch_bytes_and_rows(&table, &ReadRequest::default()).await;
    assert_eq!(all.len(), 320_000);
    let request = ReadRequest {
        first_batch_bytes: Some(1),
        ..ReadRequest::default()
    };
    let (first_piece, got) = first_batch_bytes_and_rows(&table, &request).await;
    assert_eq!(got, all, "the same rows");
    // Before: both files whole. Now: the first file's footer and its first row group.
    assert!(
        first_piece * 4 < whole,
        "{first_piece} bytes fetched before the first batch, {whole} without first_batch_bytes"
    );
}

#[tokio::test]
async fn the_first_merged_batch_holds_at_most_first_batch_rows_and_the_rows_are_the_same() {
    // Two buckets of three overlapping runs each.
    let table = kv_table(
        true,
        opts(&[("bucket", "2")]),
        vec![kv(0..20_000, "a"), kv(5_000..25_000, "b"), kv(0..100, "c")],
    )
    .await;
    let snapshot = table.latest_snapshot().await.unwrap();
    let batch_sizes = |request: ReadRequest| {
        let table = &table;
        let snapshot = snapshot.clone();
        async move {
            let mut reader = SnapshotReader::open(table, snapshot.as_ref(), &request)
                .await
                .unwrap();
            let mut batches = Vec::new();
            while let Some(batch) = reader.next_batch().await {
                batches.push(batch.unwrap());
            }
            let sizes: Vec<usize> = batches.iter().map(|b| b.num_rows()).collect();
            (sizes, lines(&batches))
        }
    };
    let (whole_sizes, all) = batch_sizes(ReadRequest::default()).await;
    assert_eq!(all.len(), 25_000);
    assert_eq!(whole_sizes[0], 8192, "{whole_sizes:?}");
    let (sizes, got) = batch_sizes(ReadRequest {
        first_batch_rows: Some(100),
        ..ReadRequest::default()
    })
    .await;
    assert_eq!(got, all, "the same rows in the same order");
    assert_eq!(sizes[0], 100, "{sizes:?}");
    // Only the first batch is small: the rest of the first bucket, and the second bucket, come in
    // whole batches.
    assert_eq!(sizes[1], 8192, "{sizes:?}");
    assert_eq!(sizes.iter().filter(|&&n| n < 8192).count(), 3, "{sizes:?}");
}
