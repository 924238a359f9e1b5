//! Snapshot diff and incremental-between over corpus tables, checked against the expected rows.

use arrow_array::{Array, RecordBatch};
use arrow_cast::display::{ArrayFormatter, FormatOptions};
use lakescope_paimon::diff::{diff_snapshots, diff_snapshots_with_progress, DiffProgress};
use lakescope_paimon::incremental::{read_incremental, IncrementalMode, IncrementalRequest};
use lakescope_paimon::table::Table;
use lakescope_storage::{LocalStore, ObjectStore};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::rc::Rc;

const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/corpus");

async fn open(table: &str) -> Table {
    let store: Rc<dyn ObjectStore> =
        Rc::new(LocalStore::new(Path::new(CORPUS).join("paimon/warehouse")));
    Table::open(store, table).await.unwrap()
}

/// Expected rows of `<db>.<table>/<file>.jsonl` as JSON objects.
fn expected(table: &str, file: &str) -> Vec<serde_json::Map<String, Value>> {
    let path = Path::new(CORPUS).join(format!("expected/paimon/{table}/{file}.jsonl"));
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| match serde_json::from_str(l).unwrap() {
            Value::Object(m) => m,
            _ => panic!("not an object"),
        })
        .collect()
}

fn json_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// Rows of batches as column name → display text (NULL as empty).
fn rows(batches: &[RecordBatch]) -> Vec<BTreeMap<String, String>> {
    let mut out = Vec::new();
    for b in batches {
        let fmts: Vec<_> = b
            .columns()
            .iter()
            .map(|c| ArrayFormatter::try_new(c.as_ref(), &FormatOptions::default()).unwrap())
            .collect();
        for r in 0..b.num_rows() {
            let mut m = BTreeMap::new();
            for (i, f) in b.schema().fields().iter().enumerate() {
                let v = if b.column(i).is_null(r) {
                    String::new()
                } else {
                    fmts[i].value(r).to_string()
                };
                m.insert(f.name().clone(), v);
            }
            out.push(m);
        }
    }
    out
}

fn key_of(m: &BTreeMap<String, String>, keys: &[&str]) -> String {
    keys.iter()
        .map(|k| m[*k].clone())
        .collect::<Vec<_>>()
        .join("|")
}

fn json_key(m: &serde_json::Map<String, Value>, keys: &[&str]) -> String {
    keys.iter()
        .map(|k| json_text(&m[*k]))
        .collect::<Vec<_>>()
        .join("|")
}

/// key → change expected from two expected snapshot files (`name` compared for updates).
fn expected_changes(table: &str, a: &str, b: &str, keys: &[&str]) -> BTreeSet<(String, String)> {
    let before: BTreeMap<String, _> = expected(table, a)
        .into_iter()
        .map(|m| (json_key(&m, keys), m))
        .collect();
    let after: BTreeMap<String, _> = expected(table, b)
        .into_iter()
        .map(|m| (json_key(&m, keys), m))
        .collect();
    let mut out = BTreeSet::new();
    for (k, m) in &after {
        match before.get(k) {
            None => {
                out.insert((k.clone(), "insert".to_string()));
            }
            Some(old) if old != m => {
                out.insert((k.clone(), "update_before".to_string()));
                out.insert((k.clone(), "update_after".to_string()));
            }
            Some(_) => {}
        }
    }
    for k in before.keys().filter(|k| !after.contains_key(*k)) {
        out.insert((k.clone(), "delete".to_string()));
    }
    out
}

async fn diff_changes(
    path: &str,
    a: i64,
    b: i64,
    keys: &[&str],
) -> (
    BTreeSet<(String, String)>,
    lakescope_paimon::diff::SnapshotDiff,
) {
    let t = open(path).await;
    let sa = t.snapshot(a).await.unwrap();
    let sb = t.snapshot(b).await.unwrap();
    let mut reports = Vec::new();
    let d = diff_snapshots_with_progress(&t, Some(&sa), &sb, &mut |p| reports.push(p))
        .await
        .unwrap();
    // Progress: first the planned total with nothing done, then one report per bucket, ending
    // at the diff's own counts.
    let total = d.buckets_read;
    assert_eq!(reports.len(), total + 1, "{reports:?}");
    assert_eq!(
        reports[0],
        DiffProgress {
            done: 0,
            total,
            files_read: 0
        }
    );
    for (i, p) in reports.iter().enumerate() {
        assert_eq!((p.done, p.total), (i, total));
    }
    assert_eq!(reports[total].files_read, d.files_read);
    let got = rows(&d.batches)
        .iter()
        .map(|m| (key_of(m, keys), m["_change"].clone()))
        .collect();
    (got, d)
}

#[tokio::test(flavor = "current_thread")]
async fn pk_compacted_4_to_5_is_the_upsert_of_ids_2_to_5() {
    let keys = ["dt", "id"];
    let (got, d) = diff_changes("java09.db/pk_compacted", 4, 5, &keys).await;
    let want = expected_changes("java09.pk_compacted", "snapshot-4", "snapshot-5", &keys);
    assert_eq!(got, want);
    let ids: BTreeSet<String> = got.iter().map(|(k, _)| k.clone()).collect();
    let expect_ids: BTreeSet<String> = (2..=5).map(|i| format!("2024-03-01|{i}")).collect();
    assert_eq!(ids, expect_ids);
    assert_eq!(d.partitions.len(), 1);
    assert_eq!(d.partitions[0].updated, 4);
    // update_after rows carry snapshot 5's values, update_before snapshot 4's.
    let after = expected("java09.pk_compacted", "snapshot-5");
    for m in rows(&d.batches)
        .iter()
        .filter(|m| m["_change"] == "update_after")
    {
        let want = after
            .iter()
            .find(|e| json_key(e, &keys) == key_of(m, &keys))
            .unwrap();
        assert_eq!(m["name"], json_text(&want["name"]));
    }
    // Cheap: only the buckets snapshot 5 wrote to were read.
    assert!(d.buckets_read < 5, "read {} buckets", d.buckets_read);
}

#[tokio::test(flavor = "current_thread")]
async fn pk_tables_every_consecutive_pair_matches_expected_rows() {
    for (path, name, keys, last) in [
        ("corpus.db/pk_dedup", "corpus.pk_dedup", vec!["dt", "id"], 5),
        (
            "java09.db/pk_compacted",
            "java09.pk_compacted",
            vec!["dt", "id"],
            6,
        ),
    ] {
        for a in 1..last {
            let (got, _) = diff_changes(path, a, a + 1, &keys).await;
            let want = expected_changes(
                name,
                &format!("snapshot-{a}"),
                &format!("snapshot-{}", a + 1),
                &keys,
            );
            assert_eq!(got, want, "{name} {a} -> {}", a + 1);
        }
    }
}

#[tokio::test(flavor = "current_thread")]
async fn pk_dedup_2_to_3_has_deletes_and_updates() {
    let (got, d) = diff_changes("corpus.db/pk_dedup", 2, 3, &["dt", "id"]).await;
    let deletes: BTreeSet<&str> = got
        .iter()
        .filter(|(_, c)| c == "delete")
        .map(|(k, _)| k.as_str())
        .collect();
    assert_eq!(
        deletes,
        BTreeSet::from(["2024-03-01|9", "2024-03-02|3", "2024-03-02|7"])
    );
    assert_eq!(got.iter().filter(|(_, c)| c == "update_after").count(), 6);
    let total: u64 = d.partitions.iter().map(|p| p.deleted).sum();
    assert_eq!(total, 3);
}

#[tokio::test(flavor = "current_thread")]
async fn append_dt_2_to_3_replaces_the_overwritten_partition() {
    let t = open("corpus.db/append_dt").await;
    let d = diff_snapshots(
        &t,
        Some(&t.snapshot(2).await.unwrap()),
        &t.snapshot(3).await.unwrap(),
    )
    .await
    .unwrap();
    let rs = rows(&d.batches);
    assert!(rs.iter().all(|m| m["dt"] == "2024-01-02"));
    let ids = |change: &str| -> Vec<String> {
        let mut v: Vec<String> = rs
            .iter()
            .filter(|m| m["_change"] == change)
            .map(|m| m["id"].clone())
            .collect();
        v.sort();
        v
    };
    let exp_ids = |file: &str| -> BTreeSet<String> {
        expected("corpus.append_dt", file)
            .iter()
            .filter(|m| json_text(&m["dt"]) == "2024-01-02")
            .map(|m| json_text(&m["id"]))
            .collect()
    };
    let (before, after) = (exp_ids("snapshot-2"), exp_ids("snapshot-3"));
    assert_eq!(ids("delete").into_iter().collect::<BTreeSet<_>>(), before);
    assert_eq!(ids("insert").into_iter().collect::<BTreeSet<_>>(), after);
    assert_eq!(ids("delete").len(), 8);
    assert_eq!(ids("insert").len(), 2);
}

#[tokio::test(flavor = "current_thread")]
async fn append_dv_delete_shows_deleted_rows() {
    let t = open("corpus.db/append_dv_row_tracking").await;
    let d = diff_snapshots(
        &t,
        Some(&t.snapshot(2).await.unwrap()),
        &t.snapshot(3).await.unwrap(),
    )
    .await
    .unwrap();
    let mut ids: Vec<String> = rows(&d.batches)
        .iter()
        .map(|m| format!("{}:{}", m["_change"], m["id"]))
        .collect();
    ids.sort();
    assert_eq!(ids, vec!["delete:1", "delete:11", "delete:2"]);
}

fn kinds_and_keys(
    out: &lakescope_paimon::table_read::ReadOutput,
    keys: &[&str],
) -> BTreeSet<(String, String)> {
    rows(&out.batches)
        .iter()
        .map(|m| {
            (
                m.get("rowkind").cloned().unwrap_or_default(),
                key_of(m, keys),
            )
        })
        .collect()
}

#[tokio::test(flavor = "current_thread")]
async fn incremental_diff_mode_matches_expected_difference() {
    let t = open("corpus.db/pk_dedup").await;
    let keys = ["dt", "id"];
    let want = expected_changes("corpus.pk_dedup", "snapshot-1", "snapshot-3", &keys);
    let mut req = IncrementalRequest::between("1,3").unwrap();
    req.mode = Some(IncrementalMode::Diff);
    let plain = read_incremental(&t, &req).await.unwrap();
    assert_eq!(plain.schema.field(0).name(), "dt");
    let got: BTreeSet<String> = rows(&plain.batches)
        .iter()
        .map(|m| key_of(m, &keys))
        .collect();
    let changed: BTreeSet<String> = want
        .iter()
        .filter(|(_, c)| c == "insert" || c == "update_after")
        .map(|(k, _)| k.clone())
        .collect();
    assert_eq!(got, changed);
    req.with_row_kind = true;
    let audit = read_incremental(&t, &req).await.unwrap();
    let deleted: BTreeSet<String> = kinds_and_keys(&audit, &keys)
        .into_iter()
        .filter(|(k, _)| k == "-D")
        .map(|(_, key)| key)
        .collect();
    let want_deleted: BTreeSet<String> = want
        .iter()
        .filter(|(_, c)| c == "delete")
        .map(|(k, _)| k.clone())
        .collect();
    assert_eq!(deleted, want_deleted);
}

#[tokio::test(flavor = "current_thread")]
async fn incremental_delta_mode_reads_the_commits_records() {
    // Append table: the rows appended by snapshot 2 = expected snapshot-2 minus snapshot-1.
    let t = open("corpus.db/append_dt").await;
    let out = read_incremental(&t, &IncrementalRequest::between("1,2").unwrap())
        .await
        .unwrap();
    let got: BTreeSet<String> = rows(&out.batches).iter().map(|m| m["id"].clone()).collect();
    let before: BTreeSet<String> = expected("corpus.append_dt", "snapshot-1")
        .iter()
        .map(|m| json_text(&m["id"]))
        .collect();
    let after: BTreeSet<String> = expected("corpus.append_dt", "snapshot-2")
        .iter()
        .map(|m| json_text(&m["id"]))
        .collect();
    assert_eq!(got, after.difference(&before).cloned().collect());
    // PK table (auto = delta without changelog producer): the records of commit 3 with row kinds.
    let t = open("corpus.db/pk_dedup").await;
    let mut req = IncrementalRequest::between("2,3").unwrap();
    req.with_row_kind = true;
    let out = read_incremental(&t, &req).await.unwrap();
    let got = kinds_and_keys(&out, &["dt", "id"]);
    assert_eq!(got.iter().filter(|(k, _)| k == "-D").count(), 3);
    assert_eq!(got.len(), 9);
    // Same snapshot twice: empty.
    let out = read_incremental(&t, &IncrementalRequest::between("3,3").unwrap())
        .await
        .unwrap();
    assert_eq!(out.batches.iter().map(|b| b.num_rows()).sum::<usize>(), 0);
    assert!(
        read_incremental(&t, &IncrementalRequest::between("3,2").unwrap())
            .await
            .is_err()
    );
}

#[tokio::test(flavor = "current_thread")]
async fn incremental_between_tags_is_a_diff() {
    let t = open("corpus.db/tagged").await;
    let out = read_incremental(&t, &IncrementalRequest::between("v1,v2").unwrap())
        .await
        .unwrap();
    let got: Vec<String> = rows(&out.batches).iter().map(|m| m["id"].clone()).collect();
    let before: BTreeSet<String> = expected("corpus.tagged", "tag-v1")
        .iter()
        .map(|m| json_text(&m["id"]))
        .collect();
    let after: BTreeSet<String> = expected("corpus.tagged", "tag-v2")
        .iter()
        .map(|m| json_text(&m["id"]))
        .collect();
    let want: BTreeSet<String> = after.difference(&before).cloned().collect();
    assert_eq!(got.iter().cloned().collect::<BTreeSet<_>>(), want);
    assert_eq!(got.len(), want.len());
    // No rowkind column unless asked for.
    assert_eq!(out.schema.field(0).name(), "id");
}
