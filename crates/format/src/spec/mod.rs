//! Plain data types both formats use (serde), and their codecs: the logical types, datums and
//! Paimon's schema JSON with its options. No IO here.

#[cfg(feature = "read")]
pub mod avro_names;
pub mod binary_row;
pub mod jackson;
pub mod options;
pub mod schema;
pub mod types;

pub use binary_row::{BinaryRow, Datum};
pub use options::{ChangelogProducer, CoreOptions, MergeEngine};
pub use schema::TableSchema;
pub use types::{DataField, DataType, TypeKind};
