//! System tables (`t$snapshots`, `t$schemas`, ...) as Arrow record batches, with Paimon's column names.

mod metadata;

use crate::table::Table;
use crate::table_read::ReadOutput;
use crate::{Error, Result};

/// Names of the system tables this reader serves.
pub const SYSTEM_TABLES: &[&str] = &["snapshots", "schemas", "options", "tags"];

/// Reads the system table `name` of `table`.
pub async fn scan(table: &Table, name: &str) -> Result<ReadOutput> {
    match name {
        "snapshots" => metadata::snapshots(table).await,
        "schemas" => metadata::schemas(table).await,
        "options" => metadata::options(table).await,
        "tags" => metadata::tags(table).await,
        other => Err(Error::NotFound {
            what: format!("system table '{other}'"),
            context: Some(format!("available: {}", SYSTEM_TABLES.join(", "))),
        }),
    }
}
