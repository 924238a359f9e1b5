//! Plain data types of the Paimon format (serde), and their codecs. No IO here.

pub mod avro_names;
pub mod binary_row;
pub(crate) mod jackson;
pub mod manifest;
pub mod options;
pub mod schema;
pub mod snapshot;
pub mod types;

pub use binary_row::{BinaryRow, Datum};
pub use manifest::{
    decode_index_manifest, decode_manifest, decode_manifest_list, DataFileMeta, DeletionVectorMeta,
    FileKind, IndexManifestEntry, ManifestEntry, ManifestFileMeta, SimpleStats,
};
pub use options::{ChangelogProducer, CoreOptions, MergeEngine};
pub use schema::TableSchema;
pub use snapshot::{CommitKind, Snapshot, Tag};
pub use types::{DataField, DataType, TypeKind};
