//! The explorer's view of corpus tables (`inspect`, `inventory`) checked against the metadata
//! JSON read independently, the corpus writer's event log, and the writer's partition folders.

use lakescope_iceberg::inspect::{table_info, ChangeKind};
use lakescope_iceberg::inventory::{snapshot_files, Content};
use lakescope_iceberg::{SnapshotSelector, Table};
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::rc::Rc;

mod common;

use common::{corpus_table, load_corpus};

/// Opens a corpus table from a memory store holding it under `corpus/<name>`.
async fn open(name: &str) -> Table {
    Table::open(Rc::new(load_corpus(name).await), &format!("corpus/{name}"))
        .await
        .unwrap()
}

/// The newest metadata JSON of a corpus table, parsed without the crate.
fn raw_metadata(name: &str) -> Value {
    let dir = corpus_table(name).join("metadata");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".metadata.json"))
        .collect();
    files.sort();
    serde_json::from_slice(&std::fs::read(files.last().unwrap()).unwrap()).unwrap()
}

fn summary_i64(snapshot: &Value, key: &str) -> i64 {
    snapshot["summary"][key].as_str().unwrap().parse().unwrap()
}

#[tokio::test(flavor = "current_thread")]
async fn overview_and_snapshots_match_the_metadata_json() {
    for name in [
        "mor_position_deletes",
        "partition_evolution",
        "schema_evolution",
    ] {
        let table = open(name).await;
        let info = table_info(&table);
        let raw = raw_metadata(name);
        assert_eq!(
            i64::from(info.format_version),
            raw["format-version"].as_i64().unwrap()
        );
        assert_eq!(info.location, raw["location"].as_str().unwrap());
        let raw_snaps = raw["snapshots"].as_array().unwrap();
        assert_eq!(info.snapshots.len(), raw_snaps.len(), "{name}");
        assert_eq!(info.schemas.len(), raw["schemas"].as_array().unwrap().len());
        assert_eq!(
            info.specs.len(),
            raw["partition-specs"].as_array().unwrap().len()
        );
        let current = info.current_snapshot().unwrap();
        assert_eq!(
            Some(current.id),
            raw["current-snapshot-id"].as_i64(),
            "{name}"
        );
        assert!(current.refs.contains(&"main".to_string()), "{name}");
        for s in &info.snapshots {
            let r = raw_snaps
                .iter()
                .find(|r| r["snapshot-id"].as_i64() == Some(s.id))
                .unwrap();
            assert_eq!(s.operation, r["summary"]["operation"].as_str().unwrap());
            assert_eq!(s.total_records, Some(summary_i64(r, "total-records")));
            assert_eq!(s.parent_id, r["parent-snapshot-id"].as_i64());
        }
        // parents come before their children
        for (i, s) in info.snapshots.iter().enumerate() {
            if let Some(p) = s.parent_id {
                assert!(info.snapshots[..i].iter().any(|x| x.id == p), "{name}");
            }
        }
    }
}

#[tokio::test(flavor = "current_thread")]
async fn schema_history_follows_the_writers_events() {
    let table = open("schema_evolution").await;
    let info = table_info(&table);
    let kinds = |id: i32| -> Vec<(ChangeKind, Option<i32>)> {
        let s = info.schemas.iter().find(|s| s.id == id).unwrap();
        let mut k: Vec<_> = s.changes.iter().map(|c| (c.kind, c.field_id)).collect();
        k.sort_by_key(|(_, id)| *id);
        k
    };
    // corpus events: ADD COLUMN extra string (1); RENAME name -> full_name (2); WIDEN id
    // int->long, score float->double (3); DROP COLUMN extra (4); re-add `extra` as a new id (5).
    assert!(kinds(0).is_empty());
    assert_eq!(kinds(1), vec![(ChangeKind::Added, Some(4))]);
    assert_eq!(kinds(2), vec![(ChangeKind::Renamed, Some(2))]);
    assert_eq!(
        kinds(3),
        vec![
            (ChangeKind::Retyped, Some(1)),
            (ChangeKind::Retyped, Some(3))
        ]
    );
    assert_eq!(kinds(4), vec![(ChangeKind::Dropped, Some(4))]);
    assert_eq!(kinds(5), vec![(ChangeKind::Added, Some(5))]);
    let s3 = info.schemas.iter().find(|s| s.id == 3).unwrap();
    assert!(s3.changes.iter().any(|c| c.text == "id: int → long"));
    let renamed = &info.schemas[2].changes[0].text;
    assert!(renamed.contains("name → full_name"), "{renamed}");
}

#[tokio::test(flavor = "current_thread")]
async fn delete_files_are_listed_with_their_content() {
    let table = open("mor_position_deletes").await;
    let raw = raw_metadata("mor_position_deletes");
    let current = raw["snapshots"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["snapshot-id"] == raw["current-snapshot-id"])
        .unwrap()
        .clone();
    let snap = table.snapshot(&SnapshotSelector::Current).unwrap();
    let files = snapshot_files(&table, snap).await.unwrap();
    let of = |c: Content| files.files.iter().filter(move |f| f.content == c);
    assert_eq!(
        of(Content::Data).count() as i64,
        summary_i64(&current, "total-data-files")
    );
    assert_eq!(
        of(Content::PositionDeletes).count() as i64,
        summary_i64(&current, "total-delete-files")
    );
    assert_eq!(
        of(Content::Data).map(|f| f.record_count).sum::<i64>(),
        summary_i64(&current, "total-records")
    );
    assert_eq!(
        of(Content::PositionDeletes)
            .map(|f| f.record_count)
            .sum::<i64>(),
        summary_i64(&current, "total-position-deletes")
    );
    // every file exists in the store under the re-rooted key, with the size the manifest says
    // (the hand-assembled snapshot summaries of this table do not sum the delete files' sizes)
    for f in &files.files {
        let meta = table.store().head(&f.key).await.unwrap();
        assert_eq!(meta.size as i64, f.size, "{}", f.key);
        assert!(f.partition.is_empty());
    }
    assert!(files
        .manifests
        .iter()
        .any(|m| m.content == Content::PositionDeletes));
    assert!(files.manifests.iter().any(|m| m.content == Content::Data));
}

#[tokio::test(flavor = "current_thread")]
async fn evolved_specs_keep_their_partitions() {
    let table = open("partition_evolution").await;
    let info = table_info(&table);
    let spec2 = info.specs.iter().find(|s| s.id == 2).unwrap();
    let transforms: Vec<(&str, Option<&str>)> = spec2
        .fields
        .iter()
        .map(|f| (f.transform.as_str(), f.source_name.as_deref()))
        .collect();
    assert_eq!(
        transforms,
        vec![("identity", Some("cat")), ("bucket[2]", Some("id"))]
    );
    let snap = table.snapshot(&SnapshotSelector::Current).unwrap();
    let files = snapshot_files(&table, snap).await.unwrap();
    let raw = raw_metadata("partition_evolution");
    let current = raw["snapshots"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["snapshot-id"] == raw["current-snapshot-id"])
        .unwrap()
        .clone();
    assert_eq!(
        files.files.len() as i64,
        summary_i64(&current, "total-data-files")
    );
    let specs: BTreeSet<i32> = files.files.iter().map(|f| f.spec_id).collect();
    assert!(specs.len() >= 2, "{specs:?}");
    // the writer put each file under the folder of its partition
    for f in &files.files {
        assert!(
            f.key.contains(&format!("/data/{}/", f.partition)),
            "{} not under {}",
            f.key,
            f.partition
        );
    }
}
