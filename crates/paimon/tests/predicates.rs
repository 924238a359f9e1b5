//! Predicates over every corpus table: pruned reads return exactly the rows of an unpruned read
//! filtered row by row, and pruning does skip files.

use arrow_array::{Array, RecordBatch};
use arrow_cast::display::{ArrayFormatter, FormatOptions};
use lakescope_paimon::predicate::parse::parse;
use lakescope_paimon::predicate::{Op, Predicate};
use lakescope_paimon::scan::{plan, plan_filtered, PartitionFilter};
use lakescope_paimon::spec::{Datum, Snapshot, TableSchema};
use lakescope_paimon::table::Table;
use lakescope_paimon::table_read::{read_snapshot, ReadRequest, SnapshotReader};
use lakescope_storage::LocalStore;
use std::path::Path;
use std::rc::Rc;

const WAREHOUSE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../../shared/corpus/paimon/warehouse"
);

fn all_tables() -> Vec<String> {
    let mut out = Vec::new();
    for db in ["corpus.db", "java09.db"] {
        let mut names: Vec<String> = std::fs::read_dir(Path::new(WAREHOUSE).join(db))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        out.extend(names.into_iter().map(|n| format!("{db}/{n}")));
    }
    out
}

async fn open(table: &str) -> Table {
    Table::open(Rc::new(LocalStore::new(WAREHOUSE)), table)
        .await
        .unwrap()
}

/// Rows as sorted text lines.
fn lines(batches: &[RecordBatch]) -> Vec<String> {
    let opts = FormatOptions::default().with_null("∅");
    let mut out = Vec::new();
    for b in batches {
        let fmts: Vec<_> = b
            .columns()
            .iter()
            .map(|c| ArrayFormatter::try_new(c.as_ref(), &opts).unwrap())
            .collect();
        for row in 0..b.num_rows() {
            let cells: Vec<String> = fmts.iter().map(|f| f.value(row).to_string()).collect();
            out.push(cells.join("|"));
        }
    }
    out.sort();
    out
}

/// A literal (as text, coerced when bound) taken from row `row` of column `col`.
fn literal_at(col: &dyn Array, row: usize) -> Option<Datum> {
    if col.is_null(row) {
        return None;
    }
    let opts = FormatOptions::default();
    let text = ArrayFormatter::try_new(col, &opts)
        .ok()?
        .value(row)
        .to_string();
    Some(Datum::String(text.trim_end_matches('Z').to_string()))
}

/// A handful of predicates per primitive column, with literals taken from the rows.
fn predicates(schema: &TableSchema, rows: &[RecordBatch]) -> Vec<Predicate> {
    let mut out = Vec::new();
    let all: Vec<&RecordBatch> = rows.iter().filter(|b| b.num_rows() > 0).collect();
    for (i, field) in schema.fields.iter().enumerate() {
        if field.data_type.is_nested() {
            continue;
        }
        let values: Vec<Datum> = all
            .iter()
            .flat_map(|b| (0..b.num_rows()).filter_map(|r| literal_at(b.column(i).as_ref(), r)))
            .collect();
        let name = field.name.clone();
        out.push(Predicate::is_null(&name));
        out.push(Predicate::Not(Box::new(Predicate::is_null(&name))));
        let (Some(first), Some(mid)) = (values.first(), values.get(values.len() / 2)) else {
            continue;
        };
        out.push(Predicate::equal(&name, mid.clone()));
        out.push(Predicate::leaf(&name, Op::Lt, vec![mid.clone()]));
        out.push(Predicate::leaf(&name, Op::GtEq, vec![mid.clone()]));
        out.push(Predicate::Not(Box::new(Predicate::equal(
            &name,
            first.clone(),
        ))));
        out.push(Predicate::leaf(
            &name,
            Op::In,
            vec![first.clone(), mid.clone(), Datum::Null],
        ));
        out.push(Predicate::Or(vec![
            Predicate::equal(&name, first.clone()),
            Predicate::leaf(&name, Op::Gt, vec![mid.clone()]),
        ]));
    }
    out
}

async fn snapshots(table: &Table) -> Vec<Snapshot> {
    let Some(latest) = table.latest_snapshot().await.unwrap() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for id in 1..=latest.id {
        if let Ok(s) = table.snapshot(id).await {
            out.push(s);
        }
    }
    out
}

#[tokio::test(flavor = "current_thread")]
async fn pruned_reads_equal_filtered_full_reads_on_every_table() {
    let mut checked = 0;
    let mut pruned_total = 0;
    for name in all_tables() {
        let table = open(&name).await;
        let mut pruned_table = 0;
        for snapshot in snapshots(&table).await {
            let schema = table.schema(snapshot.schema_id).await.unwrap();
            let full = read_snapshot(&table, Some(&snapshot), &ReadRequest::default())
                .await
                .unwrap();
            for p in predicates(&schema, &full.batches) {
                let Ok(bound) = p.bind(&schema) else {
                    // Literal text not convertible back to the column type (binary, ...).
                    continue;
                };
                let column_of = |id: i32| schema.fields.iter().position(|f| f.id == id);
                let expected: Vec<RecordBatch> = full
                    .batches
                    .iter()
                    .map(|b| bound.filter(b, &column_of).unwrap())
                    .collect();
                let request = ReadRequest {
                    filter: Some(p.clone()),
                    ..ReadRequest::default()
                };
                let mut reader = SnapshotReader::open(&table, Some(&snapshot), &request)
                    .await
                    .unwrap_or_else(|e| panic!("{name} @{} {p}: {e}", snapshot.id));
                pruned_table += reader.pruned_files();
                let mut got = Vec::new();
                while let Some(batch) = reader.next_batch().await {
                    got.push(batch.unwrap());
                }
                assert_eq!(
                    lines(&got),
                    lines(&expected),
                    "{name} snapshot {} filter {p}",
                    snapshot.id
                );
                checked += 1;
            }
        }
        eprintln!("{name}: {pruned_table} files pruned over all predicates and snapshots");
        pruned_total += pruned_table;
    }
    eprintln!("{checked} (table, snapshot, predicate) reads checked, {pruned_total} files pruned");
    assert!(checked > 500, "{checked}");
    assert!(pruned_total > 0);
}

#[tokio::test(flavor = "current_thread")]
async fn pruning_reduces_files_and_keeps_matches() {
    // `c IS NULL` prunes every file whose stats show no NULL in c (where safe).
    let mut any = false;
    for name in all_tables() {
        let table = open(&name).await;
        let Some(snapshot) = table.latest_snapshot().await.unwrap() else {
            continue;
        };
        let schema = table.schema(snapshot.schema_id).await.unwrap();
        let full = plan(&table, &snapshot, &PartitionFilter::All)
            .await
            .unwrap();
        for field in schema.fields.iter().filter(|f| !f.data_type.is_nested()) {
            let p = Predicate::is_null(&field.name);
            let filtered = plan_filtered(&table, &snapshot, &PartitionFilter::All, Some(&p))
                .await
                .unwrap();
            // Partition pruning removes files before stats pruning counts them.
            assert!(
                filtered.file_count() + filtered.pruned_files <= full.file_count(),
                "{name} {p}"
            );
            if filtered.pruned_files > 0 {
                eprintln!(
                    "{name}: `{p}` planned {} of {} files ({} pruned by stats, {} manifests skipped)",
                    filtered.file_count(),
                    full.file_count(),
                    filtered.pruned_files,
                    filtered.pruned_manifests
                );
                any = true;
            }
        }
    }
    assert!(any, "no table pruned any file");
}

/// Planning one partition decodes only that partition's manifest entries: a manifest of which
/// some entries were dropped is not cached (memory grows with the files kept, not the files
/// listed), one kept whole is; the files planned are the full plan's files of that partition.
#[tokio::test(flavor = "current_thread")]
async fn a_partition_plan_keeps_only_its_entries_and_caches_only_whole_manifests() {
    use lakescope_paimon::table::ManifestSource;
    let files = |plan: &lakescope_paimon::scan::Plan, partition: &[u8]| {
        let mut names: Vec<String> = plan
            .splits
            .iter()
            .filter(|s| s.partition_bytes == partition)
            .flat_map(|s| s.files.iter().map(|f| f.file_name.clone()))
            .collect();
        names.sort();
        names
    };
    let mut checked = 0;
    for name in all_tables() {
        let listed = open(&name).await;
        let Some(snapshot) = listed.latest_snapshot().await.unwrap() else {
            continue;
        };
        let schema = listed.schema(snapshot.schema_id).await.unwrap();
        let full = plan(&listed, &snapshot, &PartitionFilter::All)
            .await
            .unwrap();
        let (Some(key), Some(first)) = (schema.partition_keys.first(), full.splits.first()) else {
            continue;
        };
        if full
            .splits
            .iter()
            .all(|s| s.partition_bytes == first.partition_bytes)
            || first.partition.len() != 1
            || first.partition[0].is_null()
        {
            continue; // one partition: nothing to drop
        }
        let only = Predicate::equal(key, first.partition[0].clone());
        let fresh = open(&name).await;
        let planned = plan_filtered(&fresh, &snapshot, &PartitionFilter::All, Some(&only))
            .await
            .unwrap();
        assert_eq!(
            files(&planned, &first.partition_bytes),
            files(&full, &first.partition_bytes),
            "{name}: {only}"
        );
        assert!(planned
            .splits
            .iter()
            .all(|s| s.partition_bytes == first.partition_bytes));
        let mut lists = (*fresh
            .manifest_list(&snapshot.base_manifest_list)
            .await
            .unwrap())
        .clone();
        lists.extend(
            fresh
                .manifest_list(&snapshot.delta_manifest_list)
                .await
                .unwrap()
                .iter()
                .cloned(),
        );
        let mut uncached = 0;
        for meta in &lists {
            let whole = listed.manifest(&meta.file_name).await.unwrap();
            let all_kept = whole.iter().all(|e| e.partition == first.partition_bytes);
            let cached = matches!(
                fresh.manifest_or_bytes(&meta.file_name).await.unwrap(),
                ManifestSource::Decoded(_)
            );
            // Skipped by its partition stats, or decoded: cached exactly when kept whole.
            assert!(!cached || all_kept, "{name}: {} cached", meta.file_name);
            uncached += usize::from(!cached && !all_kept);
        }
        assert!(uncached > 0, "{name}: every manifest held only {only}");
        checked += 1;
    }
    assert!(checked >= 3, "only {checked} partitioned tables");
}

#[tokio::test(flavor = "current_thread")]
async fn parsed_filters_bind_with_errors_naming_column_and_literal() {
    let table = open("corpus.db/append_types_parquet").await;
    let schema = table.latest_schema().await.unwrap();
    let err = parse("no_such_column = 1")
        .unwrap()
        .bind(&schema)
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("no_such_column"), "{err}");
    let int_col = schema
        .fields
        .iter()
        .find(|f| f.data_type.to_json() == "INT")
        .map(|f| f.name.clone());
    if let Some(col) = int_col {
        let err = parse(&format!("{col} = 'abc'"))
            .unwrap()
            .bind(&schema)
            .err()
            .unwrap()
            .to_string();
        assert!(err.contains(&col) && err.contains("'abc'"), "{err}");
    }
}
