//! The Arrow column of a BLOB value: a reference to its bytes in a `.blob` file (file, offset,
//! length), as Paimon's `BlobDescriptor` (uri, offset, length); the bytes are never loaded by a scan.

use arrow_schema::{DataType as ArrowType, Field, Fields};

/// Field of the blob's store key.
pub const BLOB_FILE: &str = "file";
/// Field of the byte offset of the blob's bytes in [`BLOB_FILE`].
pub const BLOB_OFFSET: &str = "offset";
/// Field of the length of the blob's bytes.
pub const BLOB_LENGTH: &str = "length";

/// The Arrow type of a BLOB column: a struct of (file, offset, length), none of them null.
pub fn reference_type() -> ArrowType {
    ArrowType::Struct(reference_fields())
}

/// The fields of [`reference_type`].
pub fn reference_fields() -> Fields {
    Fields::from(vec![
        Field::new(BLOB_FILE, ArrowType::Utf8, false),
        Field::new(BLOB_OFFSET, ArrowType::Int64, false),
        Field::new(BLOB_LENGTH, ArrowType::Int64, false),
    ])
}
