//! Browser storage in a dedicated Web Worker (no `window`): `OpfsStore`, its locks, and `BrowserTimer`.
#![cfg(all(target_arch = "wasm32", feature = "browser"))]

#[path = "opfs_cases/mod.rs"]
mod opfs_cases;

use lakescope_storage::retry::Timer;
use lakescope_storage::transport::BrowserTimer;
use std::time::Duration;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_dedicated_worker);

#[wasm_bindgen_test]
async fn worker_has_no_window() {
    assert!(
        web_sys::window().is_none(),
        "this test must run in a worker"
    );
}

#[wasm_bindgen_test]
async fn worker_timer_sleeps() {
    let start = js_sys::Date::now();
    BrowserTimer.sleep(Duration::from_millis(50)).await;
    let waited = js_sys::Date::now() - start;
    assert!(waited >= 45.0, "slept {waited} ms");
}

#[wasm_bindgen_test]
async fn worker_opfs_round_trip_and_ranges() {
    opfs_cases::round_trip_and_ranges().await;
}

#[wasm_bindgen_test]
async fn worker_opfs_lists_folders_and_files() {
    opfs_cases::lists_folders_and_files().await;
}

#[wasm_bindgen_test]
async fn worker_opfs_put_if_absent_race_has_one_winner() {
    opfs_cases::put_if_absent_race_has_one_winner().await;
}

#[wasm_bindgen_test]
async fn worker_opfs_delete_removes_emptied_folders() {
    opfs_cases::delete_removes_emptied_folders().await;
}

#[wasm_bindgen_test]
async fn worker_opens_warehouses_through_the_browser_opener() {
    use bytes::Bytes;
    use lakescope_storage::browser::open;
    use lakescope_storage::uri::StoreOptions;

    let options = StoreOptions::default();
    let opfs = open("opfs://lakescope-worker-opener", &options).expect("opfs");
    opfs.put("a/b", Bytes::from_static(b"from a worker"))
        .await
        .expect("put");
    assert_eq!(&opfs.get("a/b").await.expect("get")[..], b"from a worker");
    // A relative URL resolves against the worker script's location (there is no page).
    let http = open("lakescope-no-such-dir/", &options).expect("relative");
    assert!(
        http.describe().starts_with("http://127.0.0.1"),
        "{}",
        http.describe()
    );
    let missing = http.get("nothing-here").await.expect_err("404");
    assert!(missing.is_not_found(), "{missing}");
}

#[wasm_bindgen_test]
async fn worker_opfs_nested_store_is_a_folder_of_the_outer_one() {
    opfs_cases::nested_store_is_a_folder_of_the_outer_one().await;
}

#[wasm_bindgen_test]
async fn worker_opfs_writer_writes_piece_by_piece_and_replaces() {
    opfs_cases::writer_writes_piece_by_piece_and_replaces().await;
}
