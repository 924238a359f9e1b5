//! Plain data types of the Paimon format (serde), and their codecs. No IO here.

pub mod types;

pub use types::{DataField, DataType, TypeKind};
