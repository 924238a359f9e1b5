//! The format-neutral table API ([`Catalog::table`]) on the demo lake: Paimon tables of the
//! corpus (`corpus.pk_dedup`: 5 snapshots, primary key `dt, id`, partitioned by `dt`;
//! `corpus.schema_evolution`: 6 schema versions) and Iceberg tables written by pyiceberg
//! (`iceberg.partition_evolution`, `iceberg.branched` with tag t1 and branch dev,
//! `iceberg.mor_position_deletes` with position delete files).

use arrow_array::{Array, StringArray};
use lakescope_engine::scan::ScanRequest;
use lakescope_engine::table::{
    CommitDetail, DiffRead, FileDetail, Format, OverviewDetail, Table, TableDiff,
};
use lakescope_engine::{Catalog, TableRef, Version};
use lakescope_iceberg::inventory::Content;
use lakescope_storage::{LocalStore, ObjectStore};
use lakescope_test_support::repo;
use std::collections::BTreeMap;
use std::rc::Rc;

async fn open(name: &str) -> Table {
    let warehouse = repo().join("public/demo/warehouse");
    let catalog = Catalog::new(Rc::new(LocalStore::new(&warehouse)) as Rc<dyn ObjectStore>);
    let table_ref: TableRef = name.parse().unwrap();
    catalog.table(&table_ref).await.unwrap()
}

#[tokio::test]
async fn a_paimon_table_overview_snapshots_and_schemas() {
    let t = open("corpus.pk_dedup").await;
    assert_eq!(t.format(), Format::Paimon);
    let o = t.overview().await.unwrap();
    assert_eq!(o.format, Format::Paimon);
    assert_eq!(o.location, "corpus.db/pk_dedup");
    assert_eq!(o.primary_keys, ["dt", "id"]);
    assert_eq!(o.partition_keys, ["dt"]);
    assert_eq!(o.snapshot_count, 5);
    assert_eq!(o.properties.get("bucket").map(String::as_str), Some("2"));
    assert_eq!(
        o.detail,
        OverviewDetail::Paimon {
            file_format: "parquet".into()
        }
    );
    let current = o.current.unwrap();
    assert_eq!((current.id, current.kind.as_str()), (5, "APPEND"));
    assert_eq!(
        (current.delta_records, current.total_records),
        (Some(3), Some(40))
    );

    let log = t.snapshots().await.unwrap();
    let ids: Vec<i64> = log.commits.iter().map(|c| c.id).collect();
    assert_eq!(ids, [1, 2, 3, 4, 5]);
    assert_eq!(log.current, Some(5));
    assert!(
        log.branches.is_empty(),
        "Paimon branches live in their own folders"
    );
    assert!(matches!(
        &log.commits[4].detail,
        CommitDetail::Paimon { commit_user, .. } if commit_user == "e8c05b11-6487-4fbf-90df-61db373d13bc"
    ));

    let schemas = t.schemas().await.unwrap();
    assert_eq!(schemas.current, 0);
    let fields: Vec<(&str, &str)> = schemas.versions[0]
        .fields
        .iter()
        .map(|f| (f.name.as_str(), f.key.as_str()))
        .collect();
    assert_eq!(fields[0], ("dt", "PK, partition"));
    assert_eq!(fields[1], ("id", "PK"));
    assert!(
        !schemas.versions[0].fields[1].nullable,
        "a key column is NOT NULL"
    );
    assert!(schemas.specs.is_empty());
}

#[tokio::test]
async fn a_paimon_schema_history_lists_changes_by_field_id() {
    let t = open("corpus.schema_evolution").await;
    let schemas = t.schemas().await.unwrap();
    let ids: Vec<i64> = schemas.versions.iter().map(|v| v.id).collect();
    assert_eq!(ids, [0, 1, 2, 3, 4, 5]);
    assert_eq!(schemas.current, 5);
    let latest: Vec<String> = schemas.versions[5]
        .fields
        .iter()
        .map(|f| format!("{} {} {}", f.id, f.name, f.type_text))
        .collect();
    assert_eq!(
        latest,
        [
            "0 id BIGINT",
            "1 full_name STRING",
            "2 score DOUBLE",
            "4 extra INT"
        ]
    );
    let text = |i: usize| -> Vec<String> {
        schemas.versions[i]
            .changes
            .iter()
            .map(|c| format!("{} {}", c.kind, c.text))
            .collect()
    };
    assert!(schemas.versions[0].changes.is_empty());
    assert!(
        text(2).contains(&"renamed name → full_name (id 1)".to_string()),
        "{:?}",
        text(2)
    );
    let retyped: Vec<String> = text(3)
        .into_iter()
        .filter(|c| c.starts_with("retyped"))
        .collect();
    assert_eq!(
        retyped,
        ["retyped id: INT → BIGINT", "retyped score: FLOAT → DOUBLE"]
    );
    assert!(text(4).contains(&"dropped extra STRING (id 3)".to_string()));
    assert!(text(5).contains(&"added extra INT (id 4)".to_string()));
}

#[tokio::test]
async fn an_iceberg_table_overview_snapshots_and_schemas() {
    let t = open("iceberg.partition_evolution").await;
    assert_eq!(t.format(), Format::Iceberg);
    let o = t.overview().await.unwrap();
    assert_eq!(
        o.location,
        "s3://lake-corpus/iceberg/warehouse/corpus/partition_evolution"
    );
    assert_eq!(o.partition_keys, ["identity(cat)", "bucket[2](id)"]);
    assert_eq!(o.snapshot_count, 5);
    let OverviewDetail::Iceberg(info) = &o.detail else {
        panic!("an Iceberg overview has the metadata")
    };
    assert_eq!(info.format_version, 2);
    assert_eq!(info.specs.len(), 3);
    let current = o.current.unwrap();
    assert_eq!(current.id, 1825139796341022881);
    assert_eq!(current.kind, "overwrite");
    // 3 records added, 6 deleted
    assert_eq!(
        (current.delta_records, current.total_records),
        (Some(-3), Some(13))
    );

    let log = t.snapshots().await.unwrap();
    let kinds: Vec<&str> = log.commits.iter().map(|c| c.kind.as_str()).collect();
    assert_eq!(kinds, ["append", "append", "append", "delete", "overwrite"]);
    assert_eq!(log.branches, [("main".to_string(), 1825139796341022881)]);

    let schemas = t.schemas().await.unwrap();
    assert_eq!(schemas.versions.len(), 1);
    assert_eq!(schemas.specs.len(), 3);
    assert!(schemas.specs.iter().any(|s| s.is_default && s.id == 2));
}

#[tokio::test]
async fn iceberg_refs_mark_snapshots_and_branches_start_with_main() {
    let t = open("iceberg.branched").await;
    let log = t.snapshots().await.unwrap();
    let (t1, dev, main) = (
        4202085185912812402,
        6671206006443057693,
        1008716633834124173,
    );
    assert_eq!(
        log.branches,
        [("main".to_string(), main), ("dev".to_string(), dev)]
    );
    assert_eq!(log.tags, [("t1".to_string(), t1)]);
    let first = log.commits.iter().find(|c| c.id == t1).unwrap();
    assert_eq!(first.refs, ["t1"]);
    let parents: Vec<Option<i64>> = log.commits.iter().map(|c| c.parent).collect();
    assert_eq!(parents, [None, Some(t1), Some(t1)]);
    let o = t.overview().await.unwrap();
    assert_eq!(o.tags, ["t1"]);
    assert_eq!(o.schema_count, 3);
    let versions = t.versions().await.unwrap();
    assert_eq!(versions.tags, [("t1".to_string(), t1)]);
}

#[tokio::test]
async fn paimon_files_have_their_bucket_and_level_at_each_version() {
    let t = open("corpus.pk_dedup").await;
    let name: TableRef = "corpus.pk_dedup".parse().unwrap();
    let latest = t.files(&name, &Version::Latest).await.unwrap();
    assert_eq!(latest.snapshot_id, Some(5));
    assert_eq!(latest.files.len(), 15);
    assert_eq!(latest.files.iter().map(|f| f.records).sum::<i64>(), 40);
    assert!(latest.manifests.is_empty());
    let first = &latest.files[0];
    assert!(first.partition.starts_with("dt="), "{}", first.partition);
    assert!(
        first
            .path
            .starts_with(&format!("corpus.db/pk_dedup/{}/bucket-", first.partition)),
        "{}",
        first.path
    );
    assert_eq!(first.format, "parquet");
    assert!(latest
        .files
        .iter()
        .all(|f| matches!(f.detail, FileDetail::Paimon { bucket: 0 | 1, .. })));
    let at_1 = t.files(&name, &Version::SnapshotId(1)).await.unwrap();
    assert_eq!(at_1.snapshot_id, Some(1));
    assert!(at_1.files.len() < latest.files.len());
    let missing = t.files(&name, &Version::SnapshotId(99)).await.unwrap_err();
    assert!(missing.to_string().contains("99"), "{missing}");
}

#[tokio::test]
async fn iceberg_files_list_data_and_delete_files_and_manifests() {
    let t = open("iceberg.mor_position_deletes").await;
    let name: TableRef = "iceberg.mor_position_deletes".parse().unwrap();
    let files = t.files(&name, &Version::Latest).await.unwrap();
    let count = |c: Content| {
        files
            .files
            .iter()
            .filter(|f| matches!(f.detail, FileDetail::Iceberg { content, .. } if content == c))
            .count()
    };
    // The current snapshot's summary: 2 data files, 3 (position) delete files.
    assert_eq!(count(Content::Data), 2);
    assert_eq!(count(Content::PositionDeletes), 3);
    assert_eq!(count(Content::EqualityDeletes), 0);
    assert!(files.manifests.len() >= 2);
    let first = t
        .files(&name, &Version::SnapshotId(2961036376978924253))
        .await
        .unwrap();
    assert_eq!(first.files.len(), 1);
    assert_eq!(first.files[0].records, 10);
}

/// The `_change` values of a diff, counted.
fn changes(d: &TableDiff) -> BTreeMap<String, usize> {
    let mut out = BTreeMap::new();
    for b in &d.batches {
        let col = b.column(0).as_any().downcast_ref::<StringArray>().unwrap();
        for v in col.iter().flatten() {
            *out.entry(v.to_string()).or_default() += 1;
        }
    }
    out
}

#[tokio::test]
async fn a_diff_from_the_empty_table_inserts_every_row_of_either_format() {
    let warehouse = repo().join("public/demo/warehouse");
    let catalog = Catalog::new(Rc::new(LocalStore::new(&warehouse)) as Rc<dyn ObjectStore>);
    let cases = [
        ("corpus.pk_dedup", Version::SnapshotId(2)),
        ("iceberg.partition_evolution", Version::Latest),
    ];
    for (name, at) in cases {
        let table_ref: TableRef = name.parse().unwrap();
        let t = catalog.table(&table_ref).await.unwrap();
        let request = ScanRequest {
            at: at.clone(),
            ..ScanRequest::default()
        };
        let scanned = catalog.scan(&table_ref, &request).await.unwrap();
        let rows: usize = scanned.batches.iter().map(|b| b.num_rows()).sum();
        let mut steps = 0;
        let d = t
            .diff(&table_ref, None, &at, &mut |_| steps += 1)
            .await
            .unwrap();
        assert_eq!(d.from, None, "{name}");
        assert_eq!(
            changes(&d),
            BTreeMap::from([("insert".to_string(), rows)]),
            "{name}"
        );
        assert!(steps > 0, "{name} reports progress");
        let per_partition: u64 = d.partitions.iter().map(|p| p.inserted).sum();
        assert_eq!(per_partition, rows as u64, "{name}");
    }
}

#[tokio::test]
async fn diffs_between_versions_name_what_they_read() {
    let paimon = open("corpus.pk_dedup").await;
    let name: TableRef = "corpus.pk_dedup".parse().unwrap();
    let d = paimon
        .diff(
            &name,
            Some(&Version::SnapshotId(4)),
            &Version::SnapshotId(5),
            &mut |_| {},
        )
        .await
        .unwrap();
    assert_eq!((d.from, d.to), (Some(4), Some(5)));
    assert!(matches!(d.read, DiffRead::Paimon { buckets, files } if buckets > 0 && files > 0));
    assert!(!changes(&d).is_empty());

    // Iceberg: the tag t1 to the head of branch dev, refs named as users type them.
    let iceberg = open("iceberg.branched").await;
    let name: TableRef = "iceberg.branched".parse().unwrap();
    let from = Version::parse("tag:t1").unwrap();
    let to = Version::parse("branch:dev").unwrap();
    let d = iceberg
        .diff(&name, Some(&from), &to, &mut |_| {})
        .await
        .unwrap();
    assert_eq!(
        (d.from, d.to),
        (Some(4202085185912812402), Some(6671206006443057693))
    );
    assert!(matches!(d.read, DiffRead::Iceberg { .. }));
    assert!(!changes(&d).is_empty());
}
