//! Entry point of the lakescope browser app (wasm32 only; natively this binary only explains that).

#[cfg(target_arch = "wasm32")]
mod app;
#[cfg(target_arch = "wasm32")]
mod state;
#[cfg(target_arch = "wasm32")]
mod tabs;
#[cfg(target_arch = "wasm32")]
mod util;
#[cfg(target_arch = "wasm32")]
mod widgets;
#[cfg(target_arch = "wasm32")]
mod workers;

#[cfg(target_arch = "wasm32")]
fn main() {
    console_error_panic_hook::set_once();
    lakescope_engine::codecs::install(
        std::rc::Rc::new(workers::orc::WorkerCodec),
        std::rc::Rc::new(workers::orc::VariantWorkerCodec),
        std::rc::Rc::new(workers::orc::AvroWorkerCodec),
    );
    // In a scan worker (`scan-worker.js`) the module serves `workers::scan_serve`: no page.
    if web_sys::window().is_some() {
        // `?threads=N` and `?grid-mib=N` are read before the router rewrites the address
        // without them.
        workers::scan_pool::readers();
        tabs::data::held_bytes_bound();
        leptos::mount::mount_to_body(app::App);
    }
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("lakescope-web runs in the browser: `trunk serve` or `bash scripts/run-demo.sh` (see README)");
}
