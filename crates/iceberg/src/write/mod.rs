//! Writing Iceberg v2 tables in the Hadoop catalog layout or through a REST catalog: create,
//! append, upsert, overwrite, copy-on-write rewrites, schema / spec / property evolution.
//!
//! Files are written first and become visible only when the next metadata names a snapshot
//! that lists them: the next `v<N>.metadata.json` created put-if-absent, or a REST catalog's
//! `updateTable` (the server writes the metadata).

pub mod append;
pub mod catalog;
mod commit;
pub mod data;
pub mod definition;
pub mod evolve;
pub mod manifest;
pub mod partition;
pub mod replace;
pub mod stats;

pub use append::append;
pub use catalog::{create_table, HadoopCatalog};
pub use definition::{iceberg_type, IcebergTableDefinition};
pub use evolve::{
    update_properties, update_schema, update_spec, ColumnPosition, SchemaChange, SpecChange,
};
pub use replace::{overwrite, upsert, LiveFiles};
