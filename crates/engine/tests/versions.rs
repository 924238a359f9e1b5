//! Versions resolved against real tables with refs: the demo lake's `java09.pk_branch` (Java
//! Paimon 0.9: main snapshots 1–2, tag t1 at 1, branch dev with its own snapshots 1–2 and tag
//! t1) and `iceberg.branched` (pyiceberg: tag t1, branch dev, main), each version named as users
//! type it ([`Version::parse`]) and resolved by the engine's one resolver per format; and the
//! versions each table lists for the app's pickers.

use lakescope_engine::scan::ScanRequest;
use lakescope_engine::version::{iceberg_selector, paimon_diff_side, paimon_snapshot};
use lakescope_engine::versions::{iceberg_versions, paimon_versions, Versions};
use lakescope_engine::{Catalog, TableRef, Version};
use lakescope_storage::{LocalStore, ObjectStore};
use lakescope_test_support::repo;
use std::rc::Rc;

fn demo() -> Catalog {
    let warehouse = repo().join("public/demo/warehouse");
    Catalog::new(Rc::new(LocalStore::new(&warehouse)) as Rc<dyn ObjectStore>)
}

/// Snapshot 2 of main and of branch dev were committed at these times (ms).
const MAIN_2_MS: i64 = 1796316375579;
const DEV_2_MS: i64 = 1796316375470;

#[tokio::test]
async fn paimon_versions_resolve_to_snapshots() {
    let catalog = demo();
    let table_ref: TableRef = "java09.pk_branch".parse().unwrap();
    let table = catalog.open_table(&table_ref).await.unwrap();
    let cases = [
        ("latest", 2),
        ("2", 2),
        ("1", 1),
        ("tag:t1", 1),
        // a bare name is a tag for Paimon
        ("t1", 1),
    ];
    for (text, want) in cases {
        let at = Version::parse(text).unwrap();
        let snapshot = paimon_snapshot(&table, &table_ref, &at).await.unwrap();
        assert_eq!(snapshot.map(|s| s.id), Some(want), "{text}");
    }
    let at_time = |ms| Version::TimestampMillis(ms);
    let before_2 = paimon_snapshot(&table, &table_ref, &at_time(MAIN_2_MS - 1))
        .await
        .unwrap();
    assert_eq!(before_2.map(|s| s.id), Some(1));
    let at_2 = paimon_snapshot(&table, &table_ref, &at_time(MAIN_2_MS))
        .await
        .unwrap();
    assert_eq!(at_2.map(|s| (s.id, s.time_millis)), Some((2, MAIN_2_MS)));
    assert_eq!(
        paimon_snapshot(&table, &table_ref, &at_time(1000))
            .await
            .unwrap_err()
            .to_string(),
        "java09.pk_branch has no snapshot committed at or before 1000 ms"
    );
    for missing in ["tag:nope", "nope", "9"] {
        let at = Version::parse(missing).unwrap();
        let err = paimon_snapshot(&table, &table_ref, &at)
            .await
            .unwrap_err()
            .to_string();
        assert!(err.contains(missing.trim_start_matches("tag:")), "{err}");
    }

    // A branch: the resolver reads the head of the branch's handle.
    let dev = table.branch("dev").await.unwrap();
    let head = paimon_snapshot(&dev, &table_ref, &Version::Branch("dev".into()))
        .await
        .unwrap();
    assert_eq!(head.map(|s| (s.id, s.time_millis)), Some((2, DEV_2_MS)));
    // ... and through a scan, which opens the branch; a missing branch is named.
    let scan = |name: &str, at: Version| {
        let catalog = &catalog;
        let table_ref: TableRef = name.parse().unwrap();
        async move {
            let request = ScanRequest {
                at,
                ..ScanRequest::default()
            };
            catalog.scan(&table_ref, &request).await.map(|r| r.schema)
        }
    };
    assert!(scan("java09.pk_branch", Version::Branch("dev".into()))
        .await
        .is_ok());
    let err = scan("java09.pk_branch$branch_nope", Version::Latest)
        .await
        .unwrap_err()
        .to_string();
    assert!(err.contains("nope"), "{err}");
    let err = scan("java09.pk_branch", Version::Branch("nope".into()))
        .await
        .unwrap_err()
        .to_string();
    assert!(err.contains("nope"), "{err}");
}

#[tokio::test]
async fn paimon_diff_sides_are_main_snapshots_or_the_empty_table() {
    let catalog = demo();
    let table = catalog
        .open_table(&"java09.pk_branch".parse().unwrap())
        .await
        .unwrap();
    let side = |text: &str| Version::parse_diff_side(text).unwrap();
    assert!(paimon_diff_side(&table, side("0").as_ref())
        .await
        .unwrap()
        .is_none());
    let t1 = paimon_diff_side(&table, side("tag:t1").as_ref())
        .await
        .unwrap();
    assert_eq!(t1.map(|s| s.id), Some(1));
    assert_eq!(
        paimon_diff_side(&table, side("branch:dev").as_ref())
            .await
            .unwrap_err()
            .to_string(),
        "Paimon table java09.db/pk_branch: diffing branch 'dev' is not supported yet (pick a snapshot or tag of the main branch)"
    );
}

#[tokio::test]
async fn iceberg_versions_resolve_to_snapshots() {
    let catalog = demo();
    let table_ref: TableRef = "iceberg.branched".parse().unwrap();
    let table = catalog.open_iceberg(&table_ref).await.unwrap().unwrap();
    let (main, t1, dev) = (
        1008716633834124173_i64,
        4202085185912812402_i64,
        6671206006443057693_i64,
    );
    let cases = [
        ("latest", main),
        ("branch:main", main),
        ("main", main),
        ("tag:t1", t1),
        ("t1", t1),
        ("branch:dev", dev),
        ("dev", dev),
        ("4202085185912812402", t1),
    ];
    for (text, want) in cases {
        let at = Version::parse(text).unwrap();
        let selector = iceberg_selector(&table_ref, &at).unwrap();
        let snapshot = table.snapshot(&selector).unwrap();
        assert_eq!(snapshot.map(|s| s.snapshot_id), Some(want), "{text}");
    }
    // `t$branch_dev` at its head is the branch; with a snapshot id it is refused.
    let on_dev: TableRef = "iceberg.branched$branch_dev".parse().unwrap();
    let selector = iceberg_selector(&on_dev, &Version::Latest).unwrap();
    assert_eq!(
        table.snapshot(&selector).unwrap().map(|s| s.snapshot_id),
        Some(dev)
    );
    assert!(iceberg_selector(&on_dev, &Version::SnapshotId(t1)).is_err());
    // Missing refs are named, and a tag is not a branch.
    for missing in ["tag:nope", "branch:nope", "nope", "branch:t1", "tag:dev"] {
        let at = Version::parse(missing).unwrap();
        let selector = iceberg_selector(&table_ref, &at).unwrap();
        let err = table.snapshot(&selector).unwrap_err().to_string();
        let name = missing.rsplit(':').next().unwrap();
        assert!(err.contains(&format!("'{name}'")), "{missing}: {err}");
    }
}

#[tokio::test]
async fn tables_list_their_snapshots_tags_and_branches() {
    let catalog = demo();
    let paimon = catalog
        .open_table(&"java09.pk_branch".parse().unwrap())
        .await
        .unwrap();
    assert_eq!(
        paimon_versions(&paimon).await.unwrap(),
        Versions {
            snapshots: vec![(1, 1796316375177), (2, MAIN_2_MS)],
            tags: vec![("t1".into(), 1)],
            branches: vec![("dev".into(), None)],
        }
    );
    let iceberg = catalog
        .open_iceberg(&"iceberg.branched".parse().unwrap())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        iceberg_versions(&iceberg),
        Versions {
            snapshots: vec![
                (4202085185912812402, 1796314893807),
                (6671206006443057693, 1796314893965),
                (1008716633834124173, 1796314894126),
            ],
            tags: vec![("t1".into(), 4202085185912812402)],
            branches: vec![("dev".into(), Some(6671206006443057693))],
        }
    );
}
