//! Apache Paimon tables: metadata (`spec`), scan planning, merge-on-read and system tables.
//!
//! Everything reads through [`lakescope_storage::ObjectStore`]; nothing here knows about HTTP or browsers.
#![warn(missing_docs)]

pub mod commit;
pub mod compact;
pub mod diff;
pub mod error;
pub mod incremental;
pub mod merge;
pub mod predicate;
pub mod read;
pub mod rest;
pub mod scan;
pub mod spec;
pub mod system;
pub mod table;
pub mod table_read;
pub mod write;
pub mod write_commit;

pub use error::{Error, Result};
