//! VARIANT columns: Parquet variant groups (plain or shredded) → Paimon's JSON text of each value.
//!
//! Paimon stores a VARIANT column in Parquet as a group: `value` and `metadata` binaries (the
//! Parquet Variant encoding), or, shredded (`variant.shreddingSchema`), `metadata`, an overflow
//! `value` and typed `typed_value` sub-columns. Shredded groups are put back together with
//! `parquet-variant-compute` (as Paimon's `ShreddingUtils.rebuild`), each value is decoded and
//! validated with `parquet-variant`, and rendered as `GenericVariant.toJson()` does
//! ([`super::variant_json`]). The read type of a VARIANT column is therefore Utf8.
//!
//! The decoder is the crate feature `variant` (the CLI and the SQL engine have it). A build
//! without it (the explorer's first load) either has a [`VariantCodec`] set, which decodes the
//! groups elsewhere (the app's lazily loaded decoder worker) before the batch is conformed
//! ([`decode_batch`]), or refuses VARIANT values by name.

use super::{ColumnPlan, Wanted};
use crate::spec::{DataField, DataType, TypeKind};
use crate::{Error, Result};
use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, ListArray, MapArray, RecordBatch, StructArray};
use arrow_schema::{DataType as ArrowType, Field, Schema};
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

/// Decodes VARIANT group columns for a build without the `variant` feature.
#[async_trait::async_trait(?Send)]
pub trait VariantCodec {
    /// The JSON text (Utf8, null where the group is null) of each value of `groups`, one
    /// variant group column (plain or shredded) of the data file `file`; `Err` is the cause.
    async fn to_json(&self, file: &str, groups: ArrayRef) -> std::result::Result<ArrayRef, String>;
}

thread_local! {
    static CODEC: RefCell<Option<Rc<dyn VariantCodec>>> = const { RefCell::new(None) };
}

/// Sets the VARIANT decoder of this thread: variant groups are then decoded by it, before the
/// batches are conformed to the read schema (the app sets its worker once, at start-up).
pub fn set_codec(codec: Rc<dyn VariantCodec>) {
    CODEC.with(|c| *c.borrow_mut() = Some(codec));
}

/// The JSON text of every value of a variant group column, with this build's decoder (what a
/// [`VariantCodec`] running elsewhere calls).
#[cfg(feature = "variant")]
pub fn json_column(file: &str, groups: &ArrayRef) -> Result<ArrayRef> {
    super::variant_decode::to_json(file, groups)
}

/// With a [`VariantCodec`] set: replaces every VARIANT group of a decoded file batch (columns
/// named as in the file, `plan` giving their file types), top level or nested in a ROW, ARRAY,
/// MAP or MULTISET, by its JSON text. Without one, the batch is returned as is.
pub(crate) async fn decode_batch(
    file: &str,
    plan: &[ColumnPlan],
    batch: RecordBatch,
) -> Result<RecordBatch> {
    let Some(codec) = CODEC.with(|c| c.borrow().clone()) else {
        return Ok(batch);
    };
    let variant_columns: Vec<&DataField> = plan
        .iter()
        .filter_map(|c| c.file.as_ref())
        .filter(|f| contains_variant(&f.data_type))
        .collect();
    if variant_columns.is_empty() {
        return Ok(batch);
    }
    let schema = batch.schema();
    let mut fields: Vec<Field> = Vec::with_capacity(schema.fields().len());
    let mut columns: Vec<ArrayRef> = Vec::with_capacity(schema.fields().len());
    for (field, column) in schema.fields().iter().zip(batch.columns()) {
        match variant_columns.iter().find(|f| &f.name == field.name()) {
            Some(f) => {
                let decoded =
                    decode_nested(codec.as_ref(), file, column.clone(), &f.data_type).await?;
                fields.push(
                    field
                        .as_ref()
                        .clone()
                        .with_data_type(decoded.data_type().clone()),
                );
                columns.push(decoded);
            }
            None => {
                fields.push(field.as_ref().clone());
                columns.push(column.clone());
            }
        }
    }
    let options = arrow_array::RecordBatchOptions::new().with_row_count(Some(batch.num_rows()));
    RecordBatch::try_new_with_options(Arc::new(Schema::new(fields)), columns, &options)
        .map_err(|e| Error::corrupt(file, e))
}

/// `array` (of Paimon type `ty`) with its variant groups replaced by their JSON text.
async fn decode_nested(
    codec: &dyn VariantCodec,
    file: &str,
    array: ArrayRef,
    ty: &DataType,
) -> Result<ArrayRef> {
    if !contains_variant(ty) {
        return Ok(array);
    }
    let invalid = |e: &dyn std::fmt::Display| Error::corrupt(file, e.to_string());
    Ok(match (&ty.kind, array.data_type()) {
        (TypeKind::Variant, ArrowType::Struct(_)) => {
            let rows = array.len();
            let json = codec
                .to_json(file, array)
                .await
                .map_err(|e| Error::corrupt(file, format!("decoding VARIANT values: {e}")))?;
            if json.len() != rows || json.data_type() != &ArrowType::Utf8 {
                return Err(Error::corrupt(
                    file,
                    format!(
                        "the VARIANT decoder answered {} {} values for {rows} groups",
                        json.len(),
                        json.data_type()
                    ),
                ));
            }
            json
        }
        (TypeKind::Row(fields), ArrowType::Struct(_)) => {
            let s = array.as_struct();
            let mut children = Vec::with_capacity(s.num_columns());
            let mut arrow_fields = Vec::with_capacity(s.num_columns());
            for (arrow_field, child) in s.fields().iter().zip(s.columns()) {
                let child_type = fields.iter().find(|f| &f.name == arrow_field.name());
                let child = match child_type {
                    Some(f) => {
                        Box::pin(decode_nested(codec, file, child.clone(), &f.data_type)).await?
                    }
                    None => child.clone(),
                };
                arrow_fields.push(
                    arrow_field
                        .as_ref()
                        .clone()
                        .with_data_type(child.data_type().clone()),
                );
                children.push(child);
            }
            Arc::new(
                StructArray::try_new(arrow_fields.into(), children, s.nulls().cloned())
                    .map_err(|e| invalid(&e))?,
            )
        }
        (TypeKind::Array(element), ArrowType::List(field)) => {
            let list = array.as_list::<i32>();
            let values =
                Box::pin(decode_nested(codec, file, list.values().clone(), element)).await?;
            let field = Arc::new(
                field
                    .as_ref()
                    .clone()
                    .with_data_type(values.data_type().clone()),
            );
            Arc::new(
                ListArray::try_new(field, list.offsets().clone(), values, list.nulls().cloned())
                    .map_err(|e| invalid(&e))?,
            )
        }
        (TypeKind::Map(key, value), ArrowType::Map(entries, sorted)) => {
            decode_map(codec, file, &array, (key, value), entries, *sorted).await?
        }
        (TypeKind::Multiset(element), ArrowType::Map(entries, sorted)) => {
            let count = DataType::nullable(TypeKind::Int);
            decode_map(codec, file, &array, (element, &count), entries, *sorted).await?
        }
        (_, other) => {
            return Err(Error::corrupt(
                file,
                format!("a {other} column where the schema has {ty}"),
            ))
        }
    })
}

/// [`decode_nested`] of a MAP (or MULTISET) column whose key and value types are `types`.
async fn decode_map(
    codec: &dyn VariantCodec,
    file: &str,
    array: &ArrayRef,
    (key, value): (&DataType, &DataType),
    entries_field: &arrow_schema::FieldRef,
    sorted: bool,
) -> Result<ArrayRef> {
    let invalid = |e: &dyn std::fmt::Display| Error::corrupt(file, e.to_string());
    let map = array.as_map();
    let entries = map.entries();
    let keys = Box::pin(decode_nested(codec, file, entries.column(0).clone(), key)).await?;
    let values = Box::pin(decode_nested(codec, file, entries.column(1).clone(), value)).await?;
    let ArrowType::Struct(entry_fields) = entries_field.data_type() else {
        return Err(invalid(&"map entries are not a struct"));
    };
    let entry_fields: Vec<Field> = entry_fields
        .iter()
        .zip([&keys, &values])
        .map(|(f, a)| f.as_ref().clone().with_data_type(a.data_type().clone()))
        .collect();
    let entries = StructArray::try_new(
        entry_fields.into(),
        vec![keys, values],
        entries.nulls().cloned(),
    )
    .map_err(|e| invalid(&e))?;
    let entries_field = Arc::new(
        entries_field
            .as_ref()
            .clone()
            .with_data_type(entries.data_type().clone()),
    );
    Ok(Arc::new(
        MapArray::try_new(
            entries_field,
            map.offsets().clone(),
            entries,
            map.nulls().cloned(),
            sorted,
        )
        .map_err(|e| invalid(&e))?,
    ))
}

/// Whether `ty` is or holds a VARIANT (in a ROW, ARRAY, MAP or MULTISET).
pub fn contains_variant(ty: &DataType) -> bool {
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
        // Already decoded by a [`VariantCodec`] ([`decode_batch`]).
        (None | Some(TypeKind::Variant), TypeKind::Variant)
            if array.data_type() == &ArrowType::Utf8 =>
        {
            Ok(array)
        }
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
    json_column(file, array)
}

/// Without the `variant` feature and without a [`VariantCodec`]: VARIANT values are refused,
/// naming the file.
#[cfg(not(feature = "variant"))]
pub(crate) fn to_json(file: &str, _array: &ArrayRef) -> Result<ArrayRef> {
    Err(Error::unsupported(
        file,
        "a VARIANT column: this build has no VARIANT decoder (lakescope-paimon feature `variant`, or read::variant::set_codec)",
    ))
}
