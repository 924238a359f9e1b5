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
