//! VARIANT columns: Parquet variant groups (plain or shredded) → Paimon's JSON text of each value.
//!
//! Paimon stores a VARIANT column in Parquet as a group: `value` and `metadata` binaries (the
//! Parquet Variant encoding), or, shredded (`variant.shreddingSchema`), `metadata`, an overflow
//! `value` and typed `typed_value` sub-columns. Shredded groups are put back together with
//! `parquet-variant-compute` (as Paimon's `ShreddingUtils.rebuild`), each value is decoded and
//! validated with `parquet-variant`, and rendered as `GenericVariant.toJson()` does
//! ([`super::variant_json`]). The read type of a VARIANT column is therefore Utf8.
//!
//! The decoder is the crate feature `variant` (the CLI and the SQL engine have it); the
//! explorer's first load leaves it out and refuses VARIANT values by name.

use super::Wanted;
use crate::spec::{DataType, TypeKind};
use crate::{Error, Result};
use arrow_array::ArrayRef;

/// Whether `ty` is or holds a VARIANT (in a ROW, ARRAY, MAP or MULTISET).
pub(crate) fn contains_variant(ty: &DataType) -> bool {
    match &ty.kind {
        TypeKind::Variant => true,
        TypeKind::Array(e) | TypeKind::Multiset(e) => contains_variant(e),
        TypeKind::Map(k, v) => contains_variant(k) || contains_variant(v),
        TypeKind::Row(fields) => fields.iter().any(|f| contains_variant(&f.data_type)),
        _ => false,
    }
}

/// Refuses a wanted VARIANT column (or one holding a VARIANT) of an Avro or ORC data file,
/// naming the file, the column and the format: Paimon writes VARIANT columns only to Parquet
/// (its ORC writer throws `Unsupported type: VARIANT`; its Avro schema has no variant).
pub(crate) fn refuse_outside_parquet(file: &str, wanted: &[Wanted], format: &str) -> Result<()> {
    match wanted.iter().find(|w| contains_variant(&w.data_type)) {
        Some(w) => Err(outside_parquet(file, &w.name, format)),
        None => Ok(()),
    }
}

/// The error of [`refuse_outside_parquet`].
pub(crate) fn outside_parquet(file: &str, column: &str, format: &str) -> Error {
    Error::unsupported(
        file,
        format!("VARIANT column '{column}' in an {format} data file (Paimon writes VARIANT only to Parquet)"),
    )
}

/// Converts a decoded column whose file type or read type is VARIANT: the file's variant group
/// becomes the JSON text of each value. A type change to or from VARIANT is refused naming `file`.
pub(crate) fn conform(
    file: &str,
    array: ArrayRef,
    file_type: Option<&DataType>,
    read_type: &DataType,
) -> Result<ArrayRef> {
    let file_kind = file_type.map(|t| &t.kind);
    match (file_kind, &read_type.kind) {
        (None | Some(TypeKind::Variant), TypeKind::Variant) => to_json(file, &array),
        _ => Err(Error::unsupported(
            file,
            format!(
                "a column changed from {} to {read_type} (VARIANT columns keep their type)",
                file_type.map_or_else(|| "an unknown type".to_string(), |t| t.to_string())
            ),
        )),
    }
}

/// The JSON text of every value of a variant group column (null where the group is null).
#[cfg(feature = "variant")]
pub(crate) fn to_json(file: &str, array: &ArrayRef) -> Result<ArrayRef> {
    super::variant_decode::to_json(file, array)
}

/// Without the `variant` feature: VARIANT values are refused, naming the file.
#[cfg(not(feature = "variant"))]
pub(crate) fn to_json(file: &str, _array: &ArrayRef) -> Result<ArrayRef> {
    Err(Error::unsupported(
        file,
        "a VARIANT column: VARIANT values are read by the lakescope CLI and the SQL engine, not by the explorer's first load",
    ))
}
