//! Storage in a real browser (headless Chromium via wasm-bindgen-test): memory store, listing, the browser opener.
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

#[wasm_bindgen_test]
async fn browser_opener_picks_the_backend_by_scheme() {
    use lakescope_storage::browser::{open, scheme, Scheme};
    use lakescope_storage::s3::S3Credentials;
    use lakescope_storage::uri::StoreOptions;

    assert_eq!(scheme("demo/warehouse/").expect("relative"), Scheme::Http);
    assert_eq!(scheme("HTTPS://h/w").expect("https"), Scheme::Http);
    assert_eq!(scheme("s3://b/w").expect("s3"), Scheme::S3);
    assert_eq!(scheme("opfs://lake").expect("opfs"), Scheme::Opfs);
    let ftp = scheme("ftp://h/w").expect_err("ftp").to_string();
    assert!(ftp.contains("opfs://"), "{ftp}");

    let options = StoreOptions {
        s3_endpoint: Some("http://127.0.0.1:9".into()),
        s3_region: Some("eu-west-1".into()),
        s3_path_style: true,
        credentials: Some(S3Credentials {
            access_key_id: "AKIDEXAMPLE".into(),
            secret_access_key: "wJalrXUtnFEMI/K7MDENG".into(),
            session_token: Some("token-secret-value".into()),
        }),
        ..StoreOptions::default()
    };
    // The options travel to a worker as JSON and come back equal; what is shown has no secrets.
    let json = serde_json::to_string(&options).expect("serialise");
    let back: StoreOptions = serde_json::from_str(&json).expect("deserialise");
    assert_eq!(back, options);
    let partial: StoreOptions =
        serde_json::from_str(r#"{"s3_path_style":true}"#).expect("defaults fill the rest");
    assert!(partial.s3_path_style && partial.credentials.is_none());
    let shown = format!("{options:?}");
    assert!(
        !shown.contains("wJalrXUtnFEMI") && !shown.contains("token-secret-value"),
        "{shown}"
    );

    let s3 = open("s3://bucket/wh/", &options).expect("s3");
    assert_eq!(s3.describe(), "s3://bucket/wh");
    assert!(!s3.describe().contains("AKIDEXAMPLE"));
    let opfs = open("opfs://lakescope-opener-test", &options).expect("opfs");
    assert_eq!(opfs.describe(), "opfs://lakescope-opener-test/");
    opfs.put("x", Bytes::from_static(b"1"))
        .await
        .expect("opfs is writable");
    let http = open("lakescope-no-such-dir/", &options).expect("relative");
    assert!(http.describe().starts_with("http"), "{}", http.describe());
    // A folder inside an OPFS warehouse is a warehouse too (a catalog's `opfs://lake/paimon`);
    // empty, `.` and `..` segments are not.
    assert_eq!(
        open("opfs://lakescope-opener-test/paimon", &options)
            .expect("nested opfs")
            .describe(),
        "opfs://lakescope-opener-test/paimon/"
    );
    assert!(open("opfs://a/../b", &options).is_err());
    assert!(open("opfs://a//b", &options).is_err());
    assert!(open("  ", &options).is_err());
}
