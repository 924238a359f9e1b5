//! Writing Paimon tables: data files, BinaryRows, buckets, statistics, manifests and schemas.
//!
//! Files written here are invisible until [`crate::commit`] names them in a snapshot.

pub mod binary_row;
pub mod bucket;
pub mod catalog_ops;
pub mod chunked;
mod cross_partition;
pub mod data_file;
pub mod datum;
pub mod dynamic_bucket;
mod input;
pub mod manifest;
#[cfg(feature = "orc")]
pub mod orc_file;
pub mod schema;
pub mod schema_change;
mod sequence_field;
pub mod stats;
pub mod table_write;

pub use chunked::ChunkedWrite;
pub use dynamic_bucket::IndexChange;
pub use lakescope_format::write_env as env;
#[cfg(not(target_arch = "wasm32"))]
pub use lakescope_format::write_env::SystemEnv;
pub use lakescope_format::write_env::{uuid_v4, FixedEnv, WriteEnv};
pub use schema::create_table;
pub use table_write::{write, write_files, CommitMessage, NewFile, ROW_KIND_COLUMN};
