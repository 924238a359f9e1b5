//! Reading Paimon tables by name from a store that cannot list (a static web host without
//! `_lakescope_index.json`): the same rows and metadata as through a listing store.

use lakescope_engine::canonical::batches_to_lines;
use lakescope_engine::session::{Outcome, Session, StoreOpener};
use lakescope_engine::{scan::ScanRequest, Version};
use lakescope_engine::{Catalog, TableRef};
use lakescope_paimon::write::FixedEnv;
use lakescope_storage::{IndexedStore, LocalStore, ObjectStore, INDEX_FILE_NAME};
use lakescope_test_support::engine::NoQueries;
use std::path::{Path, PathBuf};
use std::rc::Rc;

fn warehouse() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/paimon/warehouse")
}

/// The corpus warehouse as a host that cannot list: an index-backed store without an index.
fn unlisted() -> Catalog {
    let root = warehouse();
    assert!(
        !root.join(INDEX_FILE_NAME).exists(),
        "the corpus must not carry a listing index"
    );
    Catalog::new(Rc::new(IndexedStore::new(LocalStore::new(root))))
}

fn listed() -> Catalog {
    Catalog::new(Rc::new(LocalStore::new(warehouse())))
}

async fn lines(catalog: &Catalog, table: &str, at: Version) -> Result<Vec<String>, String> {
    let table = table.parse::<TableRef>()?;
    let request = ScanRequest {
        at,
        ..ScanRequest::default()
    };
    let result = catalog
        .scan(&table, &request)
        .await
        .map_err(|e| e.to_string())?;
    batches_to_lines(&result.batches).map_err(|e| e.to_string())
}

#[tokio::test(flavor = "current_thread")]
async fn the_store_really_cannot_list() {
    let err = unlisted().store().unwrap().list_dir("").await.unwrap_err();
    assert!(
        matches!(err, lakescope_storage::Error::Unsupported { .. }),
        "{err}"
    );
}

#[tokio::test(flavor = "current_thread")]
async fn tables_read_by_name_as_through_a_listing() {
    let (listed, unlisted) = (listed(), unlisted());
    let cases: Vec<(&str, Version)> = vec![
        ("corpus.tagged", Version::Latest),
        ("corpus.tagged", Version::SnapshotId(2)),
        ("corpus.tagged", Version::Tag("v1".into())),
        ("corpus.tagged$snapshots", Version::Latest),
        ("corpus.tagged$schemas", Version::Latest),
        ("corpus.schema_evolution", Version::Latest),
        ("corpus.schema_evolution", Version::SnapshotId(1)),
        ("corpus.schema_evolution$schemas", Version::Latest),
        ("corpus.schema_evolution$snapshots", Version::Latest),
        // Java-written: an EARLIEST hint as well as LATEST.
        ("java09.pk_deletion_vectors", Version::Latest),
        ("java09.pk_deletion_vectors", Version::SnapshotId(3)),
        ("java09.pk_deletion_vectors$snapshots", Version::Latest),
    ];
    for (table, at) in cases {
        let want = lines(&listed, table, at.clone()).await.unwrap();
        assert!(
            !want.is_empty(),
            "{table} {at:?}: the listing store read no rows"
        );
        let got = lines(&unlisted, table, at.clone())
            .await
            .unwrap_or_else(|e| panic!("{table} {at:?} without listing: {e}"));
        assert_eq!(got, want, "{table} {at:?}");
    }
    // Tags need a listing: none are listed, though one is read by name (above).
    assert!(!lines(&listed, "corpus.tagged$tags", Version::Latest)
        .await
        .unwrap()
        .is_empty());
    assert!(lines(&unlisted, "corpus.tagged$tags", Version::Latest)
        .await
        .unwrap()
        .is_empty());
}

#[tokio::test(flavor = "current_thread")]
async fn a_missing_table_is_not_found_by_path() {
    let err = lines(&unlisted(), "corpus.no_such_table", Version::Latest)
        .await
        .unwrap_err();
    assert!(
        err.contains("not found") && err.contains("corpus.db/no_such_table"),
        "{err}"
    );
    let err = lines(&unlisted(), "corpus.tagged", Version::Tag("nope".into()))
        .await
        .unwrap_err();
    assert!(err.contains("tag 'nope' not found"), "{err}");
}

/// Opens warehouses as local folders, listing or (through an index-backed store without an
/// index) not.
struct Opener {
    listing: bool,
}

impl StoreOpener for Opener {
    fn open(&self, uri: &str) -> lakescope_storage::Result<Rc<dyn ObjectStore>> {
        let local = LocalStore::from_uri(uri);
        Ok(if self.listing {
            Rc::new(local)
        } else {
            Rc::new(IndexedStore::new(local))
        })
    }
}

/// The rows of one SQL statement in a session over the corpus warehouse.
async fn sql_rows(listing: bool, statement: &str) -> Result<Vec<String>, String> {
    let mut session = Session::new(
        Rc::new(Opener { listing }),
        Rc::new(NoQueries),
        Rc::new(FixedEnv::new(1_790_000_000_000, 1)),
    );
    session
        .open_warehouse("lake", &warehouse().display().to_string())
        .await
        .map_err(|e| e.message.clone())?;
    let mut out = Err("no statement".to_string());
    session
        .run_script(statement, false, &mut |_, result| {
            out = match result {
                Ok(Outcome::Rows(rows)) => {
                    batches_to_lines(&rows.batches).map_err(|e| e.to_string())
                }
                Ok(Outcome::Done(m)) => Err(format!("no rows: {m}")),
                Err(e) => Err(e.message.clone()),
            };
        })
        .await;
    out
}

#[tokio::test(flavor = "current_thread")]
async fn sql_finds_tables_by_name_without_listing() {
    let statement = "DESCRIBE corpus.schema_evolution";
    let want = sql_rows(true, statement).await.unwrap();
    assert!(!want.is_empty());
    assert_eq!(sql_rows(false, statement).await.unwrap(), want);
    let err = sql_rows(false, "DESCRIBE corpus.no_such_table")
        .await
        .unwrap_err();
    assert!(err.contains("no_such_table"), "{err}");
}
