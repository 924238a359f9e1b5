//! Versions resolved against real tables with refs: the demo lake's `java09.pk_branch` (Java
//! Paimon 0.9: main snapshots 1–2, tag t1 at 1, branch dev with its own snapshots 1–2 and tag
//! t1) and `iceberg.branched` (pyiceberg: tag t1, branch dev, main), each version named as users
//! type it ([`Version::parse`]) and resolved by the engine's one resolver per format; and the
//! versions each table lists for the app's pickers.

use lakescope_engine::canonical::row_to_json_line;
use lakescope_engine::scan::ScanRequest;
use lakescope_engine::version::{iceberg_selector, paimon_diff, paimon_snapshot};
use lakescope_engine::versions::{
    iceberg_versions, paimon_branch_versions, paimon_versions, Versions,
};
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

/// The rows of `name` at `at`, as JSON lines, sorted.
async fn rows(catalog: &Catalog, name: &str, at: Version) -> Vec<String> {
    let request = ScanRequest {
        at,
        ..ScanRequest::default()
    };
    let out = catalog
        .scan(&name.parse().unwrap(), &request)
        .await
        .unwrap();
    let mut lines: Vec<String> = out
        .batches
        .iter()
        .flat_map(|b| (0..b.num_rows()).map(move |r| row_to_json_line(b, r).unwrap()))
        .collect();
    lines.sort();
    lines
}

#[tokio::test]
async fn a_branch_s_own_snapshots_and_tags_read_as_t_branch_name_does() {
    let catalog = demo();
    // branch dev: snapshot 1 (tag t1 of dev) is main's tag t1 copied; snapshot 2 its own rows
    for (text, on_branch) in [("branch:dev/1", "1"), ("branch:dev/tag:t1", "t1")] {
        let at = Version::parse(text).unwrap();
        let by_name = match Version::parse(on_branch).unwrap() {
            Version::Ref(tag) => Version::Tag(tag),
            other => other,
        };
        let want = rows(&catalog, "java09.pk_branch$branch_dev", by_name).await;
        assert_eq!(want.len(), 3, "{text}");
        assert_eq!(rows(&catalog, "java09.pk_branch", at.clone()).await, want);
        // the same through the name with the branch
        assert_eq!(
            rows(&catalog, "java09.pk_branch$branch_dev", at).await,
            want
        );
    }
    let dev_2 = rows(
        &catalog,
        "java09.pk_branch",
        Version::parse("branch:dev/2").unwrap(),
    )
    .await;
    assert_eq!(
        dev_2,
        rows(&catalog, "java09.pk_branch", Version::Branch("dev".into())).await
    );
    assert_ne!(
        dev_2,
        rows(&catalog, "java09.pk_branch", Version::SnapshotId(2)).await
    );
    // the resolver refuses a version of another branch than the handle's
    let table_ref: TableRef = "java09.pk_branch".parse().unwrap();
    let main = catalog.open_table(&table_ref).await.unwrap();
    let dev_1 = Version::parse("branch:dev/1").unwrap();
    assert_eq!(
        paimon_snapshot(&main, &table_ref, &dev_1)
            .await
            .unwrap_err()
            .to_string(),
        "java09.pk_branch: snapshot 1 of branch 'dev' is read on branch 'dev', not on branch 'main'"
    );
    let dev = main.branch("dev").await.unwrap();
    let s = paimon_snapshot(&dev, &table_ref, &dev_1).await.unwrap();
    assert_eq!(s.map(|s| s.id), Some(1));
    // missing snapshots and tags of the branch are named
    for (missing, name) in [
        ("branch:dev/9", "9"),
        ("branch:dev/tag:nope", "nope"),
        ("branch:nope/1", "branch 'nope'"),
    ] {
        let request = ScanRequest {
            at: Version::parse(missing).unwrap(),
            ..ScanRequest::default()
        };
        let err = catalog
            .scan(&table_ref, &request)
            .await
            .unwrap_err()
            .to_string();
        assert!(err.contains(name), "{missing}: {err}");
    }
}

#[tokio::test]
async fn a_time_on_a_branch_resolves_against_the_branch_s_own_snapshots() {
    // As Java's `TimeTravelUtil` on a branch table: `scan.timestamp-millis` picks the branch's
    // latest snapshot committed at or before the time (dev's snapshot 2 was committed before
    // main's snapshot 2; dev's snapshot 1 is main's snapshot 1 copied, with its time)
    let catalog = demo();
    let table_ref: TableRef = "java09.pk_branch".parse().unwrap();
    let main = catalog.open_table(&table_ref).await.unwrap();
    let dev = main.branch("dev").await.unwrap();
    let on_dev = |ms| Version::on_branch("dev", Version::TimestampMillis(ms)).unwrap();
    for (ms, dev_id, main_id) in [
        (DEV_2_MS - 1, 1, 1),
        (DEV_2_MS, 2, 1),
        (MAIN_2_MS - 1, 2, 1),
        (MAIN_2_MS, 2, 2),
    ] {
        let s = paimon_snapshot(&dev, &table_ref, &on_dev(ms))
            .await
            .unwrap();
        assert_eq!(s.map(|s| s.id), Some(dev_id), "dev at {ms}");
        let s = paimon_snapshot(&main, &table_ref, &Version::TimestampMillis(ms))
            .await
            .unwrap();
        assert_eq!(s.map(|s| s.id), Some(main_id), "main at {ms}");
        // a scan reads the branch's snapshot, by the version or by `t$branch_dev` and a time
        let want = rows(
            &catalog,
            "java09.pk_branch",
            Version::parse(&format!("branch:dev/{dev_id}")).unwrap(),
        )
        .await;
        assert_eq!(rows(&catalog, "java09.pk_branch", on_dev(ms)).await, want);
        assert_eq!(
            rows(
                &catalog,
                "java09.pk_branch$branch_dev",
                Version::TimestampMillis(ms)
            )
            .await,
            want
        );
    }
    assert_ne!(
        rows(&catalog, "java09.pk_branch", on_dev(MAIN_2_MS - 1)).await,
        rows(
            &catalog,
            "java09.pk_branch",
            Version::TimestampMillis(MAIN_2_MS - 1)
        )
        .await
    );
    let err = paimon_snapshot(&dev, &table_ref, &on_dev(1000))
        .await
        .unwrap_err()
        .to_string();
    assert_eq!(
        err,
        "java09.pk_branch has no snapshot on branch 'dev' committed at or before 1000 ms"
    );
    // the URL form keeps the branch
    let at = on_dev(DEV_2_MS);
    let pairs = at.url_query().unwrap();
    let back = Version::from_url_query(|k| {
        pairs
            .iter()
            .find(|(key, _)| *key == k)
            .map(|(_, v)| v.clone())
    });
    assert_eq!(back, at);
}

#[tokio::test]
async fn paimon_diffs_read_each_side_on_its_branch() {
    let catalog = demo();
    let table = Rc::new(
        catalog
            .open_table(&"java09.pk_branch".parse().unwrap())
            .await
            .unwrap(),
    );
    let side = |text: &str| Version::parse_diff_side(text).unwrap();
    let sides = |from: &str, to: &str| {
        let (table, from, to) = (table.clone(), side(from), side(to));
        async move {
            let to = to.unwrap();
            paimon_diff(&table, from.as_ref(), &to).await.map(|d| {
                (
                    d.table.branch_name().to_string(),
                    d.from.map(|s| s.id),
                    d.to.id,
                    d.to.time_millis,
                )
            })
        }
    };
    assert_eq!(
        sides("0", "tag:t1").await.unwrap(),
        ("main".into(), None, 1, 1796316375177)
    );
    assert_eq!(
        sides("1", "branch:dev").await.unwrap(),
        ("dev".into(), Some(1), 2, DEV_2_MS)
    );
    assert_eq!(
        sides("branch:dev/tag:t1", "2").await.unwrap(),
        ("main".into(), Some(1), 2, MAIN_2_MS)
    );
    assert_eq!(
        sides("branch:dev/1", "branch:main").await.unwrap().0,
        "main"
    );
    assert_eq!(
        sides("1", "branch:nope").await.unwrap_err().to_string(),
        sides("1", "branch:nope/1").await.unwrap_err().to_string()
    );
    assert!(sides("1", "branch:nope")
        .await
        .unwrap_err()
        .to_string()
        .contains("branch 'nope' of Paimon table java09.db/pk_branch"));
    // the diff itself: main's snapshot 2 to dev's head
    let d = paimon_diff(&table, side("2").as_ref(), &side("branch:dev").unwrap())
        .await
        .unwrap();
    let diff = lakescope_paimon::diff::diff_snapshots(&d.table, d.from.as_ref(), &d.to)
        .await
        .unwrap();
    let changes: Vec<String> = diff
        .batches
        .iter()
        .flat_map(|b| (0..b.num_rows()).map(move |r| row_to_json_line(b, r).unwrap()))
        .collect();
    assert_eq!(changes.len(), 4, "{changes:?}");
    for kind in ["update_before", "update_after", "insert", "delete"] {
        assert!(
            changes.iter().any(|c| c.contains(kind)),
            "{kind}: {changes:?}"
        );
    }
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
    assert_eq!(
        paimon_branch_versions(&paimon, "dev").await.unwrap(),
        Versions {
            snapshots: vec![(1, 1796316375177), (2, DEV_2_MS)],
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

/// `java09.pk_branch` in memory with a schema 1 (its schema 0 with column `v` renamed) on
/// each branch named: an ALTER on that branch.
async fn altered(branches: &[(&str, &str)]) -> Rc<lakescope_paimon::table::Table> {
    let src = repo().join("public/demo/warehouse");
    let store = Rc::new(lakescope_storage::MemoryStore::new());
    let mut dirs = vec![src.join("java09.db/pk_branch")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else {
                let key = path.strip_prefix(&src).unwrap().to_str().unwrap();
                let bytes = std::fs::read(&path).unwrap();
                store.put(key, bytes.into()).await.unwrap();
            }
        }
    }
    let schema_0 =
        std::fs::read_to_string(src.join("java09.db/pk_branch/schema/schema-0")).unwrap();
    for (meta, column) in branches {
        let mut schema: serde_json::Value = serde_json::from_str(&schema_0).unwrap();
        schema["id"] = 1.into();
        schema["fields"][1]["name"] = (*column).into();
        let key = format!("java09.db/pk_branch/{meta}schema/schema-1");
        store.put(&key, schema.to_string().into()).await.unwrap();
    }
    let catalog = Catalog::new(store as Rc<dyn ObjectStore>);
    Rc::new(
        catalog
            .open_table(&"java09.pk_branch".parse().unwrap())
            .await
            .unwrap(),
    )
}

#[tokio::test]
async fn a_diff_across_branches_reads_through_the_branch_with_every_schema() {
    // an ALTER on each branch gives schema 1 two meanings: refused
    let table = altered(&[("", "on_main"), ("branch/branch-dev/", "on_dev")]).await;
    let dev = Version::Branch("dev".into());
    let err = paimon_diff(&table, Some(&Version::SnapshotId(2)), &dev)
        .await
        .err()
        .unwrap()
        .to_string();
    assert_eq!(
        err,
        "Paimon table java09.db/pk_branch: cannot diff branch 'main' with branch 'dev': their schema 1 differs (each branch evolved its schema), so their files cannot be read with one branch's schemas"
    );
    // on one branch the diff is as before
    let dev_1 = Version::parse("branch:dev/1").unwrap();
    let d = paimon_diff(&table, Some(&dev_1), &dev).await.unwrap();
    assert_eq!((d.from.map(|s| s.id), d.to.id), (Some(1), 2));
    assert_eq!(d.table.branch_name(), "dev");

    // an ALTER on dev only: main's schemas are dev's, so dev reads both sides, either way
    let table = altered(&[("branch/branch-dev/", "on_dev")]).await;
    for (from, to) in [("branch:dev", "2"), ("2", "branch:dev")] {
        let (from, to) = (Version::parse(from).unwrap(), Version::parse(to).unwrap());
        let d = paimon_diff(&table, Some(&from), &to).await.unwrap();
        assert_eq!(d.table.branch_name(), "dev", "{from} → {to}");
    }
}
