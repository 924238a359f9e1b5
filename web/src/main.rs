//! Entry point of the lakescope browser app (wasm32 only; natively this binary only explains that).

#[cfg(target_arch = "wasm32")]
mod app;
#[cfg(target_arch = "wasm32")]
mod catalog_connect;
#[cfg(target_arch = "wasm32")]
mod catalog_service;
#[cfg(target_arch = "wasm32")]
mod catalog_tree;
#[cfg(target_arch = "wasm32")]
mod compact_action;
#[cfg(target_arch = "wasm32")]
mod connect;
#[cfg(target_arch = "wasm32")]
mod data_tab;
#[cfg(target_arch = "wasm32")]
mod ddl_editor;
#[cfg(target_arch = "wasm32")]
mod ddl_tab;
#[cfg(target_arch = "wasm32")]
mod diff_tab;
#[cfg(target_arch = "wasm32")]
mod engine_status;
#[cfg(target_arch = "wasm32")]
mod files_content;
#[cfg(target_arch = "wasm32")]
mod files_lsm;
#[cfg(target_arch = "wasm32")]
mod files_tab;
#[cfg(target_arch = "wasm32")]
mod grid;
#[cfg(target_arch = "wasm32")]
mod orc_worker;
#[cfg(target_arch = "wasm32")]
mod overview_tab;
#[cfg(target_arch = "wasm32")]
mod progress;
#[cfg(target_arch = "wasm32")]
mod remembered;
#[cfg(target_arch = "wasm32")]
mod route;
#[cfg(target_arch = "wasm32")]
mod schema_tab;
#[cfg(target_arch = "wasm32")]
mod snapshots_tab;
#[cfg(target_arch = "wasm32")]
mod sql_tab;
#[cfg(target_arch = "wasm32")]
mod sql_worker;
#[cfg(target_arch = "wasm32")]
mod table_panel;
#[cfg(target_arch = "wasm32")]
mod tag_actions;
#[cfg(target_arch = "wasm32")]
mod theme;
#[cfg(target_arch = "wasm32")]
mod timeline;
#[cfg(target_arch = "wasm32")]
mod upload_action;
#[cfg(target_arch = "wasm32")]
mod upload_client;
#[cfg(target_arch = "wasm32")]
mod util;
#[cfg(target_arch = "wasm32")]
mod versions;
#[cfg(target_arch = "wasm32")]
mod warehouse;
#[cfg(target_arch = "wasm32")]
mod warm_up;
#[cfg(target_arch = "wasm32")]
mod worker_port;

#[cfg(target_arch = "wasm32")]
fn main() {
    console_error_panic_hook::set_once();
    lakescope_paimon::read::orc::set_codec(std::rc::Rc::new(orc_worker::WorkerCodec));
    lakescope_paimon::read::variant::set_codec(std::rc::Rc::new(orc_worker::VariantWorkerCodec));
    leptos::mount::mount_to_body(app::App);
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("lakescope-web runs in the browser: `trunk serve` or `bash scripts/run-demo.sh` (see README)");
}
