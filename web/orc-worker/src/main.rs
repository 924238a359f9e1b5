//! The explorer's decoder Web Worker (named for its first job, ORC): decodes the ORC data files
//! and the VARIANT value columns the page sends (answering with `read::array_transfer` bytes) and
//! rewrites xz/bzip2 Avro files with codec `null`.

#[cfg(target_arch = "wasm32")]
mod worker;

fn main() {
    #[cfg(target_arch = "wasm32")]
    worker::start();
}
