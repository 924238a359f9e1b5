//! The explorer's decoder Web Worker (named for its first job, ORC): decodes the ORC data files
//! and the VARIANT value columns the page sends into Arrow IPC.

#[cfg(target_arch = "wasm32")]
mod worker;

fn main() {
    #[cfg(target_arch = "wasm32")]
    worker::start();
}
