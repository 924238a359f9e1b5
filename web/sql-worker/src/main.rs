//! The SQL console's Web Worker: runs Flink SQL statements in a lakescope session with DataFusion.

#[cfg(target_arch = "wasm32")]
mod upload;
#[cfg(target_arch = "wasm32")]
mod worker;

fn main() {
    #[cfg(target_arch = "wasm32")]
    worker::start();
}
