//! Plain data types of the Paimon format (serde), and their codecs. No IO here.
//!
//! The type model, datums, schema and options live in `lakescope-format` (Iceberg and the SQL
//! front end share them) and are re-exported here under their Paimon paths.

pub mod manifest;
mod manifest_entries;
pub mod snapshot;

pub(crate) use lakescope_format::spec::jackson;
pub use lakescope_format::spec::{avro_names, binary_row, options, schema, types};

pub use binary_row::{BinaryRow, Datum};
pub use manifest::{
    decode_index_manifest, decode_manifest, decode_manifest_list, DataFileMeta, DeletionVectorMeta,
    FileKind, IndexManifestEntry, ManifestEntry, ManifestFileMeta, SimpleStats,
};
pub use options::{ChangelogProducer, CoreOptions, MergeEngine};
pub use schema::TableSchema;
pub use snapshot::{CommitKind, Snapshot, Tag};
pub use types::{DataField, DataType, TypeKind};
