//! `OpfsStore` in headless Chromium (a window): round trip, ranges, listing, atomic create, delete.
#![cfg(all(target_arch = "wasm32", feature = "browser"))]

#[path = "opfs_cases/mod.rs"]
mod opfs_cases;

use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
async fn opfs_round_trip_and_ranges() {
    opfs_cases::round_trip_and_ranges().await;
}

#[wasm_bindgen_test]
async fn opfs_lists_folders_and_files() {
    opfs_cases::lists_folders_and_files().await;
}

#[wasm_bindgen_test]
async fn opfs_put_if_absent_race_has_one_winner() {
    opfs_cases::put_if_absent_race_has_one_winner().await;
}

#[wasm_bindgen_test]
async fn opfs_delete_removes_emptied_folders() {
    opfs_cases::delete_removes_emptied_folders().await;
}

#[wasm_bindgen_test]
async fn opfs_nested_store_is_a_folder_of_the_outer_one() {
    opfs_cases::nested_store_is_a_folder_of_the_outer_one().await;
}

#[wasm_bindgen_test]
async fn opfs_writer_writes_piece_by_piece_and_replaces() {
    opfs_cases::writer_writes_piece_by_piece_and_replaces().await;
}
