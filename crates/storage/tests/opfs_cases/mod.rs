//! The `OpfsStore` cases, shared by the window (wasm_opfs.rs) and worker (wasm_worker.rs) tests.

use bytes::Bytes;
use futures::future::join_all;
use lakescope_storage::{Error, ObjectStore, OpfsStore, PutOutcome};

/// A store under a folder no other test uses.
fn fresh_store(test: &str) -> OpfsStore {
    let unique = format!(
        "lakescope-test-{test}-{}-{}",
        js_sys::Date::now() as u64,
        (js_sys::Math::random() * 1e9) as u64
    );
    OpfsStore::from_uri(&format!("opfs://{unique}/")).expect("store name")
}

pub async fn round_trip_and_ranges() {
    let store = fresh_store("roundtrip");
    assert!(store.describe().starts_with("opfs://lakescope-test-"));
    assert!(store
        .get("db.db/t/x")
        .await
        .expect_err("empty")
        .is_not_found());
    assert!(store.list_dir("").await.expect("list new").files.is_empty());
    assert!(
        !store.exists().await.expect("exists"),
        "reads create nothing"
    );
    store.create().await.expect("create");
    assert!(store.exists().await.expect("exists after create"));
    assert_eq!(store.list_dir("").await.expect("empty"), Default::default());

    let data = Bytes::from((0..=255u8).cycle().take(100_000).collect::<Vec<u8>>());
    store
        .put("db.db/t/data-1.parquet", data.clone())
        .await
        .expect("put");
    assert_eq!(
        store.get("db.db/t/data-1.parquet").await.expect("get"),
        data
    );
    assert_eq!(
        store
            .head("db.db/t/data-1.parquet")
            .await
            .expect("head")
            .size,
        100_000
    );
    assert_eq!(
        store
            .get_range("db.db/t/data-1.parquet", 99_990..100_000)
            .await
            .expect("tail"),
        data.slice(99_990..100_000)
    );
    assert_eq!(
        store
            .get_range("db.db/t/data-1.parquet", 300..301)
            .await
            .expect("one byte"),
        data.slice(300..301)
    );
    assert!(store
        .get_range("db.db/t/data-1.parquet", 7..7)
        .await
        .expect("empty")
        .is_empty());
    assert!(matches!(
        store
            .get_range("db.db/t/data-1.parquet", 99_999..100_001)
            .await,
        Err(Error::OutOfRange { size: 100_000, .. })
    ));

    // Replacing with shorter content leaves no tail of the old one.
    store
        .put("db.db/t/data-1.parquet", Bytes::from_static(b"short"))
        .await
        .expect("replace");
    assert_eq!(
        &store.get("db.db/t/data-1.parquet").await.expect("get")[..],
        b"short"
    );
    // An empty object is an object.
    store.put("empty", Bytes::new()).await.expect("put empty");
    assert_eq!(
        store.get_opt("empty").await.expect("get empty"),
        Some(Bytes::new())
    );
    assert!(store
        .get("db.db/t")
        .await
        .expect_err("a folder is no object")
        .is_not_found());
    assert!(
        store.get("db.db/t/../t/x").await.is_err(),
        "'..' is refused"
    );

    // Another handle on the same name sees the same objects.
    let again = OpfsStore::new(store.name()).expect("same name");
    assert_eq!(
        &again.get("db.db/t/data-1.parquet").await.expect("get")[..],
        b"short"
    );
}

pub async fn lists_folders_and_files() {
    let store = fresh_store("list");
    for (key, len) in [
        ("a.db/t/snapshot/snapshot-1", 3usize),
        ("a.db/t/snapshot/snapshot-2", 5),
        ("a.db/t/snapshot/LATEST", 1),
        ("a.db/t/schema/schema-0", 2),
        ("a.db/u/schema/schema-0", 4),
        ("b.db/readme", 6),
    ] {
        store
            .put(key, Bytes::from(vec![b'x'; len]))
            .await
            .expect("put");
    }
    let root = store.list_dir("").await.expect("root");
    assert_eq!(root.dirs, vec!["a.db", "b.db"]);
    assert!(root.files.is_empty());
    let a = store.list_dir("a.db/").await.expect("a.db");
    assert_eq!(a.dirs, vec!["t", "u"]);
    let t = store.list_dir("/a.db/t").await.expect("t");
    assert_eq!(t.dirs, vec!["schema", "snapshot"]);
    let snaps = store.list_dir("a.db/t/snapshot").await.expect("snapshot");
    assert!(snaps.dirs.is_empty());
    let files: Vec<(String, u64)> = snaps.files.into_iter().map(|m| (m.path, m.size)).collect();
    assert_eq!(
        files,
        vec![
            ("a.db/t/snapshot/LATEST".to_string(), 1),
            ("a.db/t/snapshot/snapshot-1".to_string(), 3),
            ("a.db/t/snapshot/snapshot-2".to_string(), 5),
        ]
    );
    let b = store.list_dir("b.db").await.expect("b.db");
    assert_eq!(b.files.len(), 1);
    assert_eq!(b.files[0].path, "b.db/readme");
    assert_eq!(
        store.list_dir("no/such/dir").await.expect("missing"),
        Default::default()
    );
}

pub async fn put_if_absent_race_has_one_winner() {
    let store = fresh_store("race");
    for round in 0..3 {
        let key = format!("db.db/t/snapshot/snapshot-{round}");
        let payloads: Vec<Bytes> = (0..6)
            .map(|w| Bytes::from(format!("writer {w} of round {round}").repeat(500)))
            .collect();
        let writers = payloads
            .iter()
            .map(|p| store.put_if_absent(&key, p.clone()));
        // A reader polling meanwhile sees nothing or a whole object, never a partial one.
        let reader = async {
            let mut seen = Vec::new();
            for _ in 0..20 {
                if let Some(b) = store.get_opt(&key).await.expect("read during race") {
                    seen.push(b);
                }
            }
            seen
        };
        let (outcomes, seen) = futures::join!(join_all(writers), reader);
        let outcomes: Vec<PutOutcome> = outcomes
            .into_iter()
            .map(|o| o.expect("put_if_absent"))
            .collect();
        let winners: Vec<usize> = outcomes
            .iter()
            .enumerate()
            .filter(|(_, o)| **o == PutOutcome::Created)
            .map(|(i, _)| i)
            .collect();
        assert_eq!(winners.len(), 1, "round {round}: {outcomes:?}");
        let stored = store.get(&key).await.expect("winner's object");
        assert_eq!(
            stored, payloads[winners[0]],
            "the object holds the winner's bytes"
        );
        assert!(
            seen.iter().all(|b| *b == stored),
            "a reader saw a partial object"
        );
        assert_eq!(
            store
                .put_if_absent(&key, Bytes::from_static(b"late"))
                .await
                .expect("late"),
            PutOutcome::AlreadyExists
        );
    }
    // Only the objects are listed (no temporary files are left behind).
    let listed = store.list_dir("db.db/t/snapshot").await.expect("list");
    assert_eq!(listed.files.len(), 3);
}

pub async fn delete_removes_emptied_folders() {
    let store = fresh_store("delete");
    store
        .put("t/schema/schema-0", Bytes::from_static(b"{}"))
        .await
        .expect("put");
    store
        .put("t/snapshot/LATEST", Bytes::from_static(b"1"))
        .await
        .expect("put");
    store
        .put("top", Bytes::from_static(b"t"))
        .await
        .expect("put");
    store.delete("t/schema/schema-0").await.expect("delete");
    assert!(store
        .get("t/schema/schema-0")
        .await
        .expect_err("deleted")
        .is_not_found());
    assert_eq!(store.list_dir("t").await.expect("t").dirs, vec!["snapshot"]);
    store
        .delete("t/schema/schema-0")
        .await
        .expect("deleting a missing object is fine");
    store
        .delete("no/such/folder/x")
        .await
        .expect("missing folders are fine");
    store.delete("t/snapshot/LATEST").await.expect("delete");
    let root = store.list_dir("").await.expect("root");
    assert!(root.dirs.is_empty(), "emptied folders are gone: {root:?}");
    assert_eq!(root.files.len(), 1);
    store.delete("top").await.expect("delete top");
    // The store's own folder stays and can be written again.
    assert_eq!(store.list_dir("").await.expect("root"), Default::default());
    assert_eq!(
        store
            .put_if_absent("top", Bytes::from_static(b"again"))
            .await
            .expect("recreate"),
        PutOutcome::Created
    );
}

/// `opfs://NAME/FOLDER/...` is a store rooted at a folder inside another (a catalog's warehouse
/// inside the page's OPFS warehouse): its objects are the outer store's objects below the folder.
pub async fn nested_store_is_a_folder_of_the_outer_one() {
    let outer = fresh_store("nested");
    let inner = OpfsStore::from_uri(&format!("opfs://{}/paimon/", outer.name())).expect("nested");
    assert_eq!(inner.describe(), format!("opfs://{}/paimon/", outer.name()));
    assert!(
        !inner.exists().await.expect("exists"),
        "nothing created yet"
    );
    inner
        .put("db.db/t/schema/schema-0", Bytes::from_static(b"{}"))
        .await
        .expect("put through the inner store");
    assert!(inner.exists().await.expect("exists after put"));
    assert_eq!(
        &outer
            .get("paimon/db.db/t/schema/schema-0")
            .await
            .expect("seen from the outer store")[..],
        b"{}"
    );
    assert_eq!(
        outer.list_dir("").await.expect("outer").dirs,
        vec!["paimon"]
    );
    assert_eq!(inner.list_dir("").await.expect("inner").dirs, vec!["db.db"]);
    assert_eq!(
        inner
            .put_if_absent("db.db/t/schema/schema-0", Bytes::from_static(b"x"))
            .await
            .expect("create"),
        PutOutcome::AlreadyExists
    );
    inner
        .delete("db.db/t/schema/schema-0")
        .await
        .expect("delete");
    assert!(outer
        .get("paimon/db.db/t/schema/schema-0")
        .await
        .expect_err("deleted")
        .is_not_found());
}

/// `OpfsStore::writer` writes a file piece by piece: the file holds every piece in order once
/// finished, a second writer replaces it, and the store reads what was written.
pub async fn writer_writes_piece_by_piece_and_replaces() {
    let store = fresh_store("writer");
    let piece = |i: u8| vec![b'a' + i; 300_000];
    let mut writer = store.writer("out/export").await.expect("writer");
    for i in 0..3 {
        writer.write(&piece(i)).await.expect("write");
    }
    let file = writer.finish().await.expect("finish");
    assert_eq!(file.size() as usize, 900_000);
    let read = store.get("out/export").await.expect("get");
    assert_eq!(read, [piece(0), piece(1), piece(2)].concat());
    let mut again = store.writer("out/export").await.expect("second writer");
    again.write(b"short").await.expect("write");
    assert_eq!(again.finish().await.expect("finish").size(), 5.0);
    assert_eq!(
        store.get("out/export").await.expect("get"),
        Bytes::from_static(b"short")
    );
    store.delete("out/export").await.expect("delete");
}
