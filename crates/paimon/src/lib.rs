//! Apache Paimon tables: metadata (`spec`), scan planning, merge-on-read and system tables.
//!
//! Everything reads through [`lakescope_storage::ObjectStore`]; nothing here knows about HTTP or browsers.

pub mod error;
pub mod merge;
pub mod read;
pub mod scan;
pub mod spec;
pub mod table;

pub use error::{Error, Result};
