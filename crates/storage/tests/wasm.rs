//! Storage in a real browser (headless Chromium via wasm-bindgen-test): memory store and listing.
#![cfg(target_arch = "wasm32")]

use bytes::Bytes;
use lakescope_storage::{
    Error, IndexedStore, MemoryStore, ObjectMeta, ObjectStore, PutOutcome, INDEX_FILE_NAME,
};
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
async fn memory_store_round_trip() {
    let store = MemoryStore::new();
    store
        .put("db.db/t/snapshot/LATEST", Bytes::from_static(b"3"))
        .await
        .expect("put");
    assert_eq!(
        &store.get("db.db/t/snapshot/LATEST").await.expect("get")[..],
        b"3"
    );
    let outcome = store
        .put_if_absent("db.db/t/snapshot/LATEST", Bytes::from_static(b"4"))
        .await
        .expect("put_if_absent");
    assert_eq!(outcome, PutOutcome::AlreadyExists);
    store
        .put("x", Bytes::from_static(b"0123456789"))
        .await
        .expect("put");
    assert_eq!(
        &store.get_range("x", 2..5).await.expect("range")[..],
        b"234"
    );
    assert!(matches!(
        store.get_range("x", 8..12).await,
        Err(Error::OutOfRange { size: 10, .. })
    ));
    assert_eq!(store.head("x").await.expect("head").size, 10);
    store.delete("x").await.expect("delete");
    assert!(store.get("x").await.expect_err("deleted").is_not_found());
    assert_eq!(store.get_opt("x").await.expect("get_opt"), None);
}

#[wasm_bindgen_test]
async fn indexed_store_lists_from_the_index_file() {
    let mem = MemoryStore::new();
    let files = vec![
        ObjectMeta {
            path: "b.db/t2/schema/schema-0".into(),
            size: 2,
        },
        ObjectMeta {
            path: "a.db/t1/schema/schema-0".into(),
            size: 2,
        },
        ObjectMeta {
            path: "a.db/t1/snapshot/LATEST".into(),
            size: 1,
        },
    ];
    let index = IndexedStore::<MemoryStore>::render_index(files);
    mem.put(INDEX_FILE_NAME, Bytes::from(index))
        .await
        .expect("put index");
    let store = IndexedStore::new(mem);
    assert_eq!(
        store.list_dir("").await.expect("root").dirs,
        vec!["a.db", "b.db"]
    );
    assert_eq!(
        store.list_dir("a.db/t1").await.expect("t1").dirs,
        vec!["schema", "snapshot"]
    );
    let snapshot = store.list_dir("a.db/t1/snapshot/").await.expect("snapshot");
    assert_eq!(snapshot.files.len(), 1);
    assert_eq!(snapshot.files[0].path, "a.db/t1/snapshot/LATEST");
    assert_eq!(snapshot.files[0].size, 1);

    let missing = IndexedStore::new(MemoryStore::new());
    let message = missing
        .list_dir("")
        .await
        .expect_err("no index")
        .to_string();
    assert!(message.contains(INDEX_FILE_NAME), "{message}");
}
