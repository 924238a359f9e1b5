//! Snapshot diffs of Iceberg tables: every consecutive pair of snapshots of every corpus table
//! against the difference of pyiceberg's expected rows (A's rows projected onto B's schema by
//! field id), and upserts (equality deletes), copy-on-write deletes and a merge-on-read
//! position delete on tables with identifier fields written by lakescope.

use arrow_array::RecordBatch;
use arrow_cast::display::{ArrayFormatter, FormatOptions};
use lakescope_engine::canonical::row_to_json_line;
use lakescope_iceberg::diff::{
    diff_snapshots, diff_snapshots_with_progress, DiffProgress, SnapshotDiff, CHANGE_COLUMN,
};
use lakescope_iceberg::spec::transform::Transform;
use lakescope_iceberg::write::{append, upsert, IcebergTableDefinition, LiveFiles};
use lakescope_iceberg::{read::DeleteCache, SnapshotSelector, Table};
use lakescope_storage::LocalStore;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;

mod common;
use common::*;

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus")
}

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path:?}: {e}"))
}

/// (field id, name) of the top-level fields of a snapshot's expected schema file.
fn schema_fields(dir: &Path, snapshot: i64) -> Vec<(i64, String)> {
    let s = read_json(&dir.join(format!("snapshot-{snapshot}.schema.json")));
    s["iceberg_schema"]["fields"]
        .as_array()
        .expect("iceberg_schema.fields")
        .iter()
        .map(|f| {
            (
                f["id"].as_i64().expect("field id"),
                f["name"].as_str().expect("field name").to_string(),
            )
        })
        .collect()
}

/// A snapshot's expected rows projected onto `onto` (B's fields): values by field id, null
/// where the snapshot lacks the field. Rows are JSON objects in B's field order.
fn expected_rows(dir: &Path, snapshot: i64, onto: &[(i64, String)]) -> Vec<Value> {
    let own = schema_fields(dir, snapshot);
    let text = std::fs::read_to_string(dir.join(format!("snapshot-{snapshot}.jsonl"))).unwrap();
    text.lines()
        .map(|line| {
            let row: serde_json::Map<String, Value> = serde_json::from_str(line).unwrap();
            let projected = onto
                .iter()
                .map(|(id, name)| {
                    let value = own
                        .iter()
                        .find(|(i, _)| i == id)
                        .and_then(|(_, n)| row.get(n).cloned())
                        .unwrap_or(Value::Null);
                    (name.clone(), value)
                })
                .collect();
            Value::Object(projected)
        })
        .collect()
}

/// `a` minus `b` as multisets, as sorted JSON texts.
fn minus(a: &[Value], b: &[Value]) -> Vec<String> {
    let mut left: BTreeMap<String, usize> = BTreeMap::new();
    for v in b {
        *left.entry(v.to_string()).or_default() += 1;
    }
    let mut out = Vec::new();
    for v in a {
        let t = v.to_string();
        match left.get_mut(&t) {
            Some(n) if *n > 0 => *n -= 1,
            _ => out.push(t),
        }
    }
    out.sort();
    out
}

/// The diff's rows by change kind, each row (without `_change`) as the JSON text of its
/// canonical line re-parsed (so numbers compare by value, as the expected rows do).
fn diff_rows(diff: &SnapshotDiff) -> BTreeMap<String, Vec<String>> {
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for batch in &diff.batches {
        assert_eq!(batch.schema().field(0).name(), CHANGE_COLUMN);
        let values = batch.project(&(1..batch.num_columns()).collect::<Vec<_>>());
        let values = values.unwrap();
        let change = text_column(batch, 0);
        for (r, kind) in change.into_iter().enumerate() {
            let line = row_to_json_line(&values, r).unwrap();
            let v: Value = serde_json::from_str(&line).unwrap();
            out.entry(kind).or_default().push(v.to_string());
        }
    }
    for rows in out.values_mut() {
        rows.sort();
    }
    out
}

fn text_column(batch: &RecordBatch, c: usize) -> Vec<String> {
    let f = ArrayFormatter::try_new(batch.column(c).as_ref(), &FormatOptions::default()).unwrap();
    (0..batch.num_rows())
        .map(|r| f.value(r).to_string())
        .collect()
}

#[tokio::test(flavor = "current_thread")]
async fn every_consecutive_corpus_pair_matches_the_expected_rows() {
    let expected_root = corpus().join("expected/iceberg");
    let store = Rc::new(LocalStore::new(corpus().join("iceberg/warehouse")));
    let mut names: Vec<String> = std::fs::read_dir(&expected_root)
        .expect("the corpus is beside the repository at ../shared/corpus")
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert!(
        names.len() >= 6,
        "expected the whole corpus, found {names:?}"
    );
    let mut pairs = 0;
    let mut failures = Vec::new();
    for name in &names {
        let dir = expected_root.join(name);
        let table = Table::open(store.clone(), &format!("corpus/{name}"))
            .await
            .unwrap();
        let ids: Vec<i64> = read_json(&dir.join("table.json"))["snapshots"]
            .as_array()
            .expect("snapshots")
            .iter()
            .map(|s| s["snapshot_id"].as_i64().expect("snapshot_id"))
            .collect();
        let mut previous: Option<i64> = None;
        for &id in &ids {
            let label = format!("{name} {previous:?} → {id}");
            let onto = schema_fields(&dir, id);
            let b_rows = expected_rows(&dir, id, &onto);
            let a_rows = previous.map_or_else(Vec::new, |p| expected_rows(&dir, p, &onto));
            let from = previous.map(|p| table.metadata().snapshot(p).unwrap());
            let to = table.metadata().snapshot(id).unwrap();
            let mut reports = Vec::new();
            let diff = match diff_snapshots_with_progress(&table, from, to, &mut |p| {
                reports.push(p)
            })
            .await
            {
                Ok(d) => d,
                Err(e) => {
                    failures.push(format!("{label}: {e}"));
                    previous = Some(id);
                    continue;
                }
            };
            pairs += 1;
            // Progress: the planned total first, then one report per data file read.
            let n = diff.files_read;
            let want: Vec<DiffProgress> = (0..=n)
                .map(|i| DiffProgress {
                    done: i,
                    total: n,
                    files_read: i,
                })
                .collect();
            assert_eq!(reports, want, "{label}: progress");
            let got = diff_rows(&diff);
            let inserted = minus(&b_rows, &a_rows);
            let deleted = minus(&a_rows, &b_rows);
            let empty = Vec::new();
            if got.get("insert").unwrap_or(&empty) != &inserted
                || got.get("delete").unwrap_or(&empty) != &deleted
                || got.keys().any(|k| k != "insert" && k != "delete")
            {
                failures.push(format!(
                    "{label}: got {got:?}\nexpected inserted {inserted:?}\ndeleted {deleted:?}"
                ));
            }
            let (ins, del, upd) = diff.partitions.iter().fold((0, 0, 0), |s, p| {
                (s.0 + p.inserted, s.1 + p.deleted, s.2 + p.updated)
            });
            if (ins as usize, del as usize, upd) != (inserted.len(), deleted.len(), 0) {
                failures.push(format!("{label}: partition counts {:?}", diff.partitions));
            }
            assert!(
                diff.changed_columns.is_empty(),
                "{label}: no identifier fields"
            );
            previous = Some(id);
        }
        // A snapshot against itself: nothing read, nothing changed.
        if let Some(last) = ids.last().and_then(|id| table.metadata().snapshot(*id)) {
            let same = diff_snapshots(&table, Some(last), last).await.unwrap();
            assert_eq!((same.num_rows(), same.files_read), (0, 0), "{name}");
        }
    }
    assert!(pairs >= 27, "only {pairs} pairs diffed");
    assert!(failures.is_empty(), "mismatches:\n{}", failures.join("\n"));
}

#[tokio::test(flavor = "current_thread")]
async fn partitions_are_named_by_their_values() {
    let store = Rc::new(LocalStore::new(corpus().join("iceberg/warehouse")));
    let table = Table::open(store, "corpus/partition_evolution")
        .await
        .unwrap();
    let first = &table.metadata().snapshots[0];
    let diff = diff_snapshots(&table, None, first).await.unwrap();
    // Spec 0 is months(ts): partition names are months, and the counts add up to the rows.
    assert!(!diff.partitions.is_empty());
    for p in &diff.partitions {
        let text = p.partition[0].to_string();
        let (name, month) = text.split_once('=').expect("name=value");
        assert_eq!(name, "ts_month", "{text}");
        assert!(
            month.len() == 7 && month.as_bytes()[4] == b'-',
            "not a month: {text}"
        );
    }
    let total: u64 = diff.partitions.iter().map(|p| p.inserted).sum();
    assert_eq!(total as usize, diff.num_rows());
}

fn people_def() -> IcebergTableDefinition {
    IcebergTableDefinition {
        columns: vec![
            col("id", bigint()),
            col("name", string()),
            col("qty", bigint()),
        ],
        identifier_fields: vec!["id".into()],
        ..Default::default()
    }
}

fn people(ids: &[i64], names: &[&str], qty: &[i64]) -> RecordBatch {
    batch(vec![
        ("id", longs(ids)),
        ("name", strings(names)),
        ("qty", longs(qty)),
    ])
}

/// Diff rows as `change|id|name|qty` lines, in the diff's order.
fn lines(diff: &SnapshotDiff) -> Vec<String> {
    let mut out = Vec::new();
    for b in &diff.batches {
        let cols: Vec<Vec<String>> = (0..b.num_columns()).map(|c| text_column(b, c)).collect();
        for r in 0..b.num_rows() {
            out.push(
                cols.iter()
                    .map(|c| c[r].as_str())
                    .collect::<Vec<_>>()
                    .join("|"),
            );
        }
    }
    out
}

/// Copy-on-write DELETE of the rows whose `id` is in `ids`.
async fn delete_ids(t: &Table, ids: &[i64], w: &Warehouse) -> Table {
    use arrow_array::{Array, BooleanArray, Int64Array};
    let mut cache = DeleteCache::default();
    let live = LiveFiles::of(t).await.unwrap();
    let mut removed = Vec::new();
    let mut kept = Vec::new();
    for task in &live.tasks {
        let mut rows = Vec::new();
        let mut hit = false;
        for b in live.read(task, &mut cache).await.unwrap() {
            let id = b.column(0).as_any().downcast_ref::<Int64Array>().unwrap();
            let keep: BooleanArray = (0..b.num_rows())
                .map(|i| Some(id.is_null(i) || !ids.contains(&id.value(i))))
                .collect();
            hit |= keep.true_count() < b.num_rows();
            rows.push(arrow_select::filter::filter_record_batch(&b, &keep).unwrap());
        }
        if hit {
            removed.push(task);
            kept.extend(rows);
        }
    }
    live.replace(&removed, &kept, &w.env).await.unwrap()
}

#[tokio::test(flavor = "current_thread")]
async fn upserts_and_deletes_by_identifier_fields() {
    let w = Warehouse::new();
    let t = w.create("db", "people", people_def()).await;
    let t1 = append(
        &t,
        &[people(&[1, 2, 3], &["a", "b", "c"], &[10, 20, 30])],
        &w.env,
    )
    .await
    .unwrap();
    // Upsert: equality deletes of keys 2 and 4, then the rows.
    let t2 = upsert(&t1, &[people(&[2, 4], &["b", "d"], &[25, 40])], &w.env)
        .await
        .unwrap();
    let t3 = upsert(&t2, &[people(&[1], &["a2"], &[11])], &w.env)
        .await
        .unwrap();
    let t4 = delete_ids(&t3, &[3], &w).await;
    let snap = |t: &Table| t.metadata().current_snapshot().unwrap().clone();
    let (s1, s2, s3, s4) = (snap(&t1), snap(&t2), snap(&t3), snap(&t4));
    assert_eq!(s2.summary["added-equality-deletes"], "2");

    let d = diff_snapshots(&t4, Some(&s1), &s2).await.unwrap();
    assert_eq!(
        lines(&d),
        [
            "update_before|2|b|20",
            "update_after|2|b|25",
            "insert|4|d|40"
        ]
    );
    assert_eq!(d.changed_columns, [vec!["qty".to_string()]]);
    let counts = &d.partitions;
    assert_eq!(counts.len(), 1);
    assert!(counts[0].partition.is_empty());
    assert_eq!(
        (counts[0].inserted, counts[0].deleted, counts[0].updated),
        (1, 0, 1)
    );

    let d = diff_snapshots(&t4, Some(&s2), &s3).await.unwrap();
    assert_eq!(lines(&d), ["update_before|1|a|10", "update_after|1|a2|11"]);
    assert_eq!(
        d.changed_columns,
        [vec!["name".to_string(), "qty".to_string()]]
    );

    // The copy-on-write delete rewrites the first file: its surviving rows cancel out, and
    // the upserts' files (whose deletes did not change) are not read at all.
    let d = diff_snapshots(&t4, Some(&s3), &s4).await.unwrap();
    assert_eq!(lines(&d), ["delete|3|c|30"]);
    assert!(d.changed_columns.is_empty());
    assert!(d.files_skipped >= 1, "skipped {}", d.files_skipped);

    // Across all of it: keys 1 and 2 changed, 3 deleted, 4 inserted.
    let d = diff_snapshots(&t4, Some(&s1), &s4).await.unwrap();
    let mut got = lines(&d);
    got.sort();
    assert_eq!(
        got,
        [
            "delete|3|c|30",
            "insert|4|d|40",
            "update_after|1|a2|11",
            "update_after|2|b|25",
            "update_before|1|a|10",
            "update_before|2|b|20",
        ]
    );
    let mut changed = d.changed_columns.clone();
    changed.sort();
    assert_eq!(
        changed,
        [
            vec!["name".to_string(), "qty".to_string()],
            vec!["qty".to_string()]
        ]
    );
    // Every update_before is immediately followed by the update_after of the same key.
    let ordered = lines(&d);
    for (i, l) in ordered.iter().enumerate() {
        if let Some(rest) = l.strip_prefix("update_before|") {
            let key = rest.split('|').next().unwrap();
            assert!(ordered[i + 1].starts_with(&format!("update_after|{key}|")));
        }
    }
}

#[tokio::test(flavor = "current_thread")]
async fn partitioned_upsert_counts_per_partition() {
    let w = Warehouse::new();
    let mut def = people_def();
    def.identifier_fields = vec!["id".into(), "name".into()];
    def.partition = vec![("name".into(), Transform::Identity)];
    let t = w.create("db", "p", def).await;
    let t1 = append(
        &t,
        &[people(&[1, 2, 3], &["a", "b", "a"], &[1, 2, 3])],
        &w.env,
    )
    .await
    .unwrap();
    let t2 = upsert(&t1, &[people(&[1, 5], &["a", "b"], &[9, 5])], &w.env)
        .await
        .unwrap();
    let s1 = t1.metadata().current_snapshot().unwrap().clone();
    let s2 = t2.metadata().current_snapshot().unwrap().clone();
    let d = diff_snapshots(&t2, Some(&s1), &s2).await.unwrap();
    let counts: Vec<(String, u64, u64, u64)> = d
        .partitions
        .iter()
        .map(|p| {
            let name = p
                .partition
                .iter()
                .map(|v| v.to_string())
                .collect::<Vec<_>>()
                .join("/");
            (name, p.inserted, p.deleted, p.updated)
        })
        .collect();
    assert_eq!(
        counts,
        [
            ("name=a".to_string(), 0, 0, 1),
            ("name=b".to_string(), 1, 0, 0)
        ]
    );
    assert_eq!(d.changed_columns, [vec!["qty".to_string()]]);
}

/// Commits a merge-on-read position delete of rows `positions` of the table's first data file,
/// as Flink or Spark would (lakescope's writer deletes copy-on-write): a Parquet delete file, a
/// DELETES manifest, a manifest list keeping the current manifests, and the next metadata file.
async fn commit_position_delete(w: &Warehouse, t: &Table, positions: &[i64]) -> Table {
    use arrow_array::{ArrayRef, Int64Array, StringArray};
    use arrow_schema::{DataType, Field, Schema as ArrowSchema};
    use lakescope_iceberg::plan::plan;
    use lakescope_iceberg::spec::manifest::read_manifest_list;
    use lakescope_iceberg::spec::{DataContentType, ManifestFile, Snapshot, SnapshotRef};
    use lakescope_iceberg::write::catalog::{latest_metadata, write_metadata};
    use lakescope_iceberg::write::manifest::{
        encode_manifest, encode_manifest_list, ListContext, ManifestContext, NewFile,
    };
    use lakescope_iceberg::write::partition::spec_fields;
    use lakescope_storage::ObjectStore;
    use parquet::arrow::{ArrowWriter, PARQUET_FIELD_ID_META_KEY};
    use std::collections::HashMap;
    use std::sync::Arc;

    let store = w.store.as_ref();
    let m = t.metadata();
    let current = m.current_snapshot().unwrap().clone();
    let target = plan(t, &current).await.unwrap().tasks[0].data.clone();
    let id_meta =
        |id: i32| HashMap::from([(PARQUET_FIELD_ID_META_KEY.to_string(), id.to_string())]);
    let schema = Arc::new(ArrowSchema::new(vec![
        Field::new("file_path", DataType::Utf8, false).with_metadata(id_meta(2_147_483_546)),
        Field::new("pos", DataType::Int64, false).with_metadata(id_meta(2_147_483_545)),
    ]));
    let columns: Vec<ArrayRef> = vec![
        Arc::new(StringArray::from(vec![
            target.file.file_path.as_str();
            positions.len()
        ])),
        Arc::new(Int64Array::from(positions.to_vec())),
    ];
    let mut bytes = Vec::new();
    let mut writer = ArrowWriter::try_new(&mut bytes, schema.clone(), None).unwrap();
    writer
        .write(&RecordBatch::try_new(schema, columns).unwrap())
        .unwrap();
    writer.close().unwrap();
    let name = "pos-del-diff-test.parquet";
    let size = bytes.len() as i64;
    store
        .put(&format!("{}/data/{name}", t.key()), bytes.into())
        .await
        .unwrap();

    let snapshot_id = current.snapshot_id + 1;
    let sequence_number = m.last_sequence_number + 1;
    let schema = m.current_schema().unwrap();
    let spec = m.spec(m.default_spec_id.unwrap_or(0)).unwrap();
    let fields = spec_fields(t.key(), schema, spec).unwrap();
    let ctx = ManifestContext {
        schema,
        spec,
        fields: &fields,
        snapshot_id,
    };
    let delete = NewFile {
        content: DataContentType::PositionDeletes,
        path: format!("{}/data/{name}", m.location),
        partition: Vec::new(),
        record_count: positions.len() as i64,
        file_size_in_bytes: size,
        equality_ids: Vec::new(),
        stats: Default::default(),
    };
    let manifest_name = format!("metadata/pos-del-{snapshot_id}-m0.avro");
    let manifest = encode_manifest(&manifest_name, &ctx, true, &[delete]).unwrap();
    let manifest_length = manifest.len() as i64;
    store
        .put(&format!("{}/{manifest_name}", t.key()), manifest.into())
        .await
        .unwrap();
    let list_key = t
        .resolve(current.manifest_list.as_ref().unwrap(), t.metadata_key())
        .unwrap();
    let mut manifests =
        read_manifest_list(&list_key, &store.get(&list_key).await.unwrap()).unwrap();
    manifests.push(ManifestFile {
        manifest_path: format!("{}/{manifest_name}", m.location),
        manifest_length,
        partition_spec_id: spec.spec_id,
        content: DataContentType::PositionDeletes,
        sequence_number,
        min_sequence_number: sequence_number,
        added_snapshot_id: snapshot_id,
        added_files_count: Some(1),
        existing_files_count: Some(0),
        deleted_files_count: Some(0),
        added_rows_count: Some(positions.len() as i64),
        existing_rows_count: Some(0),
        deleted_rows_count: Some(0),
        first_row_id: None,
    });
    let list_name = format!("metadata/snap-{snapshot_id}-diff-test.avro");
    let list = encode_manifest_list(
        &list_name,
        &ListContext {
            snapshot_id,
            parent_snapshot_id: Some(current.snapshot_id),
            sequence_number,
        },
        &manifests,
    )
    .unwrap();
    store
        .put(&format!("{}/{list_name}", t.key()), list.into())
        .await
        .unwrap();
    let mut next = m.clone();
    next.snapshots.push(Snapshot {
        snapshot_id,
        parent_snapshot_id: Some(current.snapshot_id),
        sequence_number,
        timestamp_ms: current.timestamp_ms + 1,
        manifest_list: Some(format!("{}/{list_name}", m.location)),
        manifests: None,
        summary: BTreeMap::from([("operation".to_string(), "delete".to_string())]),
        schema_id: current.schema_id,
    });
    next.current_snapshot_id = Some(snapshot_id);
    next.last_sequence_number = sequence_number;
    next.refs.insert(
        "main".into(),
        SnapshotRef {
            snapshot_id,
            ref_type: "branch".into(),
            max_ref_age_ms: None,
            max_snapshot_age_ms: None,
            min_snapshots_to_keep: None,
        },
    );
    let (version, _) = latest_metadata(store, t.key()).await.unwrap().unwrap();
    write_metadata(store, t.key(), version + 1, &next)
        .await
        .unwrap();
    Table::open(w.store.clone(), t.key()).await.unwrap()
}

#[tokio::test(flavor = "current_thread")]
async fn position_deletes_by_identifier_fields() {
    let w = Warehouse::new();
    let t = w.create("db", "pos", people_def()).await;
    let t1 = append(
        &t,
        &[people(&[1, 2, 3], &["a", "b", "c"], &[10, 20, 30])],
        &w.env,
    )
    .await
    .unwrap();
    // Merge-on-read delete of the row at position 1 (id 2), then key 2 written again.
    let t2 = commit_position_delete(&w, &t1, &[1]).await;
    let t3 = append(&t2, &[people(&[2], &["b"], &[99])], &w.env)
        .await
        .unwrap();
    assert_eq!(
        rows(&t2, SnapshotSelector::Current).await,
        ["1|a|10", "3|c|30"]
    );
    let snap = |t: &Table| t.metadata().current_snapshot().unwrap().clone();
    let (s1, s2, s3) = (snap(&t1), snap(&t2), snap(&t3));

    let d = diff_snapshots(&t3, Some(&s1), &s2).await.unwrap();
    assert_eq!(lines(&d), ["delete|2|b|20"]);
    // The first file's deletes did not change from s2 to s3: only the new file is read.
    let d = diff_snapshots(&t3, Some(&s2), &s3).await.unwrap();
    assert_eq!(lines(&d), ["insert|2|b|99"]);
    assert_eq!((d.files_read, d.files_skipped), (1, 1));
    // Across both: the key is still there with another qty.
    let d = diff_snapshots(&t3, Some(&s1), &s3).await.unwrap();
    assert_eq!(lines(&d), ["update_before|2|b|20", "update_after|2|b|99"]);
    assert_eq!(d.changed_columns, [vec!["qty".to_string()]]);
}
