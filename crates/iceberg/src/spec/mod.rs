//! The Iceberg table spec as plain data: metadata JSON, types, manifest lists and manifests.

pub mod compression;
pub mod manifest;
pub mod metadata;
pub mod refuse;
pub mod transform;
pub mod types;

pub use manifest::{
    DataContentType, DataFile, FileFormat, Literal, ManifestEntry, ManifestFile, Status,
};
pub use metadata::{PartitionField, PartitionSpec, Snapshot, SnapshotRef, TableMetadata};
pub use types::{NestedField, Schema, Type};
