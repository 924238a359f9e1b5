//! The explorer's ORC Web Worker: decodes the ORC data files the page sends into Arrow IPC.

#[cfg(target_arch = "wasm32")]
mod worker;

fn main() {
    #[cfg(target_arch = "wasm32")]
    worker::start();
}
