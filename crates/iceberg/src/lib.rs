//! Apache Iceberg tables (format v1/v2): metadata, manifests, scan planning, deletes, time travel,
//! and writes in the Hadoop catalog layout ([`mod@write`]): create, append, upsert, overwrite,
//! copy-on-write DELETE/UPDATE, schema, partition-spec and property evolution; tables of an
//! Iceberg REST catalog ([`rest`]) read and written the same way.
//!
//! Everything reads through [`lakescope_storage::ObjectStore`]. Absolute URIs in metadata are
//! re-rooted onto the table's folder ([`location::Relocator`]). Data files are decoded by the
//! shared readers of `lakescope-format` and matched to the read schema by field id.

#![warn(missing_docs)]

pub mod convert;
pub mod defaults;
pub mod diff;
pub mod error;
pub mod inspect;
pub mod inventory;
pub mod lineage;
pub mod location;
pub mod missing;
pub mod name_mapping;
pub mod orc_names;
pub mod partition_values;
pub mod plan;
pub mod read;
pub mod rest;
pub mod scan;
pub mod spec;
pub mod table;
pub mod write;

pub use error::{Error, Result};
pub use scan::{read as read_table, PlannedRead, PlannedRows, ReadOutput, ReadRequest};
pub use table::{MetadataCatalog, OpenOptions, RefKind, SnapshotSelector, Table};

/// Whether the folder `table_key` of `store` holds an Iceberg table: a `metadata/` folder with
/// `*.metadata.json` or `version-hint.text`, and no Paimon `schema/` folder.
pub async fn is_iceberg_table(store: &dyn lakescope_storage::ObjectStore, table_key: &str) -> bool {
    let Ok(listing) = store.list_dir(table_key).await else {
        return false;
    };
    if listing.dirs.iter().any(|d| d == "schema") || !listing.dirs.iter().any(|d| d == "metadata") {
        return false;
    }
    let Ok(meta) = store
        .list_dir(&lakescope_storage::join(table_key, "metadata"))
        .await
    else {
        return false;
    };
    meta.files.iter().any(|f| {
        let name = f.path.rsplit('/').next().unwrap_or_default();
        name == location::VERSION_HINT || location::metadata_version(name).is_some()
    })
}
