//! REST catalogs opened for browsing (`CatalogAddress::open_for_browsing`, the explorer page's
//! catalogs): against Apache Paimon's mock REST catalog server and lakana-server (Iceberg REST)
//! of ../shared/catalogs, with tables pypaimon 2.1 and pyiceberg 0.12 wrote through them, a
//! browsing catalog reads exactly what the catalog opened with `open` reads (and, for Paimon,
//! what pypaimon reads), while a commit to one of its tables and its DDL are refused by name and
//! leave the catalog as it was.

use arrow_array::{ArrayRef, Int32Array, RecordBatch, StringArray};
use lakescope_engine::write::insert_into_table;
use lakescope_engine::{Catalog, CatalogAddress, TableRef, Version};
use lakescope_paimon::spec::types::MAX_LENGTH;
use lakescope_paimon::spec::{DataType, TypeKind};
use lakescope_paimon::write::schema::TableDefinition;
use lakescope_paimon::write::FixedEnv;
use lakescope_storage::transport::ReqwestTransport;
use lakescope_storage::{LocalStore, ObjectStore};
use lakescope_test_support::catalogs::{
    paimon_rest_warehouse, pyiceberg_rest, pypaimon_rest, start_catalog_server, PAIMON_REST_TOKEN,
};
use lakescope_test_support::engine::{canonical_rows, LocalOpener};
use lakescope_test_support::oracles::{oracles, sections};
use lakescope_test_support::temp_dir;
use std::rc::Rc;
use std::sync::Arc;

/// The catalog at `address`, opened with `open` or, when `browsing`, `open_for_browsing`.
async fn open(address: &str, token: &str, browsing: bool) -> Catalog {
    let transport = Rc::new(ReqwestTransport::new(std::time::Duration::from_secs(30)).unwrap());
    let address = CatalogAddress::parse(address).unwrap();
    let token = Some(token.to_string());
    let opened = if browsing {
        address
            .open_for_browsing(token, transport, Rc::new(LocalOpener))
            .await
    } else {
        address.open(token, transport, Rc::new(LocalOpener)).await
    };
    opened.unwrap()
}

#[tokio::test]
async fn a_paimon_catalog_opened_for_browsing_reads_as_pypaimon_and_refuses_commits() {
    let Some(o) = oracles() else { return };
    let (_dir, wh) = paimon_rest_warehouse();
    let (_server, url, _) = start_catalog_server("paimon-rest-server.sh", &wh);
    pypaimon_rest(&o.python, &url, &["write"]);
    let latest = |table: &str| -> i64 {
        let printed = pypaimon_rest(&o.python, &url, &["latest", table]);
        serde_json::from_str::<serde_json::Value>(&printed).unwrap()["id"]
            .as_i64()
            .unwrap()
    };
    let address = format!("paimon+rest://{}/wh", url.trim_start_matches("http://"));
    let browsing = open(&address, PAIMON_REST_TOKEN, true).await;
    let writing = open(&address, PAIMON_REST_TOKEN, false).await;

    for name in ["d.pk", "d.ap"] {
        let table: TableRef = name.parse().unwrap();
        let id = latest(name);
        let want = sections::<i64>(&pypaimon_rest(
            &o.python,
            &url,
            &["read", name, &id.to_string()],
        ))
        .remove(&id)
        .unwrap()
        .unwrap();
        for at in [Version::Latest, Version::SnapshotId(id)] {
            let got = canonical_rows(&browsing, &table, at.clone()).await;
            assert_eq!(got.as_ref(), Ok(&want), "{name} at {at:?}");
            assert_eq!(canonical_rows(&writing, &table, at).await, got, "{name}");
        }
    }

    // an INSERT into a table it located is refused, naming the table, and commits nothing
    let ap: TableRef = "d.ap".parse().unwrap();
    let before = latest("d.ap");
    let table = browsing.locate(&ap).await.unwrap().open().await.unwrap();
    let rows = RecordBatch::try_from_iter(vec![
        ("n", Arc::new(Int32Array::from(vec![9])) as ArrayRef),
        (
            "s",
            Arc::new(StringArray::from(vec!["browsed"])) as ArrayRef,
        ),
    ])
    .unwrap();
    let env = FixedEnv::new(1_790_000_000_000, 5);
    let err = insert_into_table(&env, &table, &[rows], None)
        .await
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("d.ap") && err.contains("opened for browsing"),
        "{err}"
    );
    assert_eq!(latest("d.ap"), before, "no snapshot was committed");

    // DDL through it is refused too
    let err = browsing
        .drop_table("d", "ap")
        .await
        .unwrap_err()
        .to_string();
    assert!(err.contains("dropping table d.ap"), "{err}");
    assert_eq!(latest("d.ap"), before);
}

#[tokio::test]
async fn an_iceberg_catalog_opened_for_browsing_reads_as_open_does_and_refuses_commits() {
    let Some(o) = oracles() else { return };
    let dir = temp_dir("browsing", "iceberg-rest");
    let (_server, url, ready) = start_catalog_server("iceberg-rest-server-lakana.sh", &dir);
    let token = ready["token"].as_str().unwrap().to_string();
    pyiceberg_rest(&o.python, &url, &token, &["write", "gold"]);
    let snapshots = |table: &str| -> Vec<i64> {
        pyiceberg_rest(&o.python, &url, &token, &["read", table])
            .lines()
            .filter_map(|l| l.strip_prefix("== ")?.trim().parse().ok())
            .collect()
    };
    let address = format!(
        "iceberg+rest://{}?prefix=dev",
        url.trim_start_matches("http://")
    );
    let browsing = open(&address, &token, true).await;
    let writing = open(&address, &token, false).await;

    for name in ["gold.events", "gold.plain"] {
        let table: TableRef = name.parse().unwrap();
        let ids = snapshots(name);
        assert!(!ids.is_empty(), "{name}");
        for at in std::iter::once(Version::Latest).chain(ids.into_iter().map(Version::SnapshotId)) {
            let got = canonical_rows(&browsing, &table, at.clone()).await;
            assert!(got.as_ref().is_ok_and(|r| !r.is_empty()), "{name}: {got:?}");
            assert_eq!(
                canonical_rows(&writing, &table, at.clone()).await,
                got,
                "{name} at {at:?}"
            );
        }
    }

    // a commit to a table it loaded is refused, naming the table, and commits nothing
    let plain: TableRef = "gold.plain".parse().unwrap();
    let before = snapshots("gold.plain");
    let table = browsing.open_iceberg(&plain).await.unwrap().unwrap();
    let err = table
        .metadata_catalog()
        .commit(&table, table.metadata())
        .await
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("gold.plain") && err.contains("loaded for reading"),
        "{err}"
    );
    assert_eq!(snapshots("gold.plain"), before, "no snapshot was committed");
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn a_warehouse_opened_for_browsing_reads_as_one_opened_to_write_and_refuses_ddl() {
    let dir = temp_dir("browsing", "warehouse");
    let store: Rc<dyn ObjectStore> = Rc::new(LocalStore::new(&dir));
    let writing = Catalog::new(store.clone());
    let definition = TableDefinition {
        columns: vec![
            (
                "n".into(),
                DataType::nullable(TypeKind::Int).with_nullable(false),
                None,
            ),
            (
                "s".into(),
                DataType::nullable(TypeKind::VarChar(MAX_LENGTH)),
                None,
            ),
        ],
        primary_keys: vec!["n".into()],
        options: [("bucket".to_string(), "1".to_string())].into(),
        ..Default::default()
    };
    let env = FixedEnv::new(1_790_000_000_000, 3);
    let t = writing
        .create_table_with(&env, "db", "t", &definition)
        .await
        .unwrap();
    for (n, s) in [(1, "a"), (2, "b"), (1, "c")] {
        let rows = RecordBatch::try_from_iter(vec![
            ("n", Arc::new(Int32Array::from(vec![n])) as ArrayRef),
            ("s", Arc::new(StringArray::from(vec![s])) as ArrayRef),
        ])
        .unwrap();
        writing.insert(&t, &[rows], None).await.unwrap();
    }

    let browsing = Catalog::browse(store);
    assert!(!browsing.is_service());
    assert_eq!(
        browsing.tree().await.unwrap(),
        writing.tree().await.unwrap()
    );
    for at in [
        Version::Latest,
        Version::SnapshotId(1),
        Version::SnapshotId(2),
    ] {
        let got = canonical_rows(&browsing, &t, at.clone()).await;
        assert!(got.as_ref().is_ok_and(|r| !r.is_empty()), "{at:?}: {got:?}");
        assert_eq!(
            got,
            canonical_rows(&writing, &t, at.clone()).await,
            "{at:?}"
        );
    }

    let err = browsing
        .create_table_with(&env, "db", "u", &definition)
        .await
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("creating table db.u") && err.contains("opened for browsing"),
        "{err}"
    );
    assert!(!dir.join("db.db/u").exists(), "nothing was created");
    let _ = std::fs::remove_dir_all(&dir);
}
