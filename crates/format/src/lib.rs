//! What the Paimon and Iceberg formats share: the logical type model and datums (`spec`), the
//! data-file readers to Arrow (`read`, feature `read`), the write environment (`write_env`) and
//! the diff types.
//!
//! Everything reads through `lakescope_storage::ObjectStore`; nothing here knows about HTTP or
//! browsers. Without the `read` feature the crate is plain data types (no Arrow, Parquet, Avro
//! or storage): what the SQL front end needs.
#![warn(missing_docs)]

pub mod diff;
pub mod error;
#[cfg(feature = "read")]
pub mod read;
pub mod spec;
pub mod system_tables;
pub mod write_env;

pub use error::{Error, Result};
