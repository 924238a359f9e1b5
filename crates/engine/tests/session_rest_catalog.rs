//! A SQL session whose opener cannot reach catalog services (no catalog transport) refuses
//! a REST catalog by name before any request, creates no catalog, and keeps working.

use lakescope_engine::session::{Outcome, Session, StoreOpener};
use lakescope_paimon::write::FixedEnv;
use lakescope_storage::{MemoryStore, ObjectStore};
use lakescope_test_support::engine::NoQueries;
use std::rc::Rc;

/// Opens every warehouse as an empty in-memory store; no catalog transport (the default).
struct Memory;

impl StoreOpener for Memory {
    fn open(&self, _uri: &str) -> lakescope_storage::Result<Rc<dyn ObjectStore>> {
        Ok(Rc::new(MemoryStore::new()))
    }
}

#[tokio::test]
async fn rest_catalogs_are_refused_without_a_transport_and_nothing_is_created() {
    let mut session = Session::new(
        Rc::new(Memory),
        Rc::new(NoQueries),
        Rc::new(FixedEnv::new(1_790_000_000_000, 1)),
    );
    let mut results = Vec::new();
    let script = "CREATE CATALOG r WITH ('type' = 'paimon', 'metastore' = 'rest', 'uri' = 'http://127.0.0.1:1', 'warehouse' = 'wh', 'token.provider' = 'bear', 'token' = 'sekrit');
        CREATE CATALOG i WITH ('type' = 'iceberg', 'catalog-type' = 'rest', 'uri' = 'http://127.0.0.1:1', 'token' = 'sekrit');
        USE CATALOG r;
        SHOW CATALOGS;";
    let failed = session
        .run_script(script, true, &mut |_, r| results.push(r.clone()))
        .await;
    assert_eq!(failed, 3);
    for (i, catalog) in [(0, "r"), (1, "i")] {
        let e = results[i].as_ref().err().unwrap();
        assert!(
            e.message.starts_with(&format!("catalog {catalog}: "))
                && e.message.contains("http://127.0.0.1:1")
                && e.message.contains("connecting to a REST catalog service")
                && e.message.ends_with("(nothing was created)")
                && !e.message.contains("sekrit"),
            "{e}"
        );
        assert_eq!((e.pos.line, e.pos.column > 1), (i as u64 + 1, true));
    }
    assert!(results[2]
        .as_ref()
        .err()
        .unwrap()
        .message
        .contains("[r] does not exist"));
    let Ok(Outcome::Rows(shown)) = &results[3] else {
        panic!("SHOW CATALOGS: {:?}", results[3]);
    };
    let names = shown.batches[0]
        .column(0)
        .as_any()
        .downcast_ref::<arrow_array::StringArray>()
        .unwrap();
    assert_eq!(
        names.iter().collect::<Vec<_>>(),
        vec![Some("default_catalog")]
    );
}
