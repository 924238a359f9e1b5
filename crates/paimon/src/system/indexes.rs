//! `$table_indexes`: the index files of a snapshot's index manifest (hash indexes and deletion
//! vector files), with Paimon's columns (Java `TableIndexesTable`).

use super::render;
use crate::spec::binary_row::BinaryRow;
use crate::spec::snapshot::Snapshot;
use crate::table::Table;
use crate::table_read::ReadOutput;
use crate::{Error, Result};
use arrow_array::builder::{Int32Builder, Int64Builder, StringBuilder};
use arrow_array::{
    ArrayRef, Int32Array, Int64Array, ListArray, RecordBatch, StringArray, StructArray,
};
use arrow_buffer::{NullBuffer, OffsetBuffer};
use arrow_schema::{DataType, Field, Fields, Schema};
use std::sync::Arc;

/// Index types whose entries carry no global-index metadata (the columns after `dv_ranges` are
/// null for them); any other type is refused, as its metadata is not decoded.
const KNOWN_INDEX_TYPES: &[&str] = &["HASH", "DELETION_VECTORS"];

/// The fields of one `dv_ranges` element (Java `DeletionVectorMeta.SCHEMA`).
fn dv_range_fields() -> Fields {
    Fields::from(vec![
        Field::new("f0", DataType::Utf8, false),
        Field::new("f1", DataType::Int32, false),
        Field::new("f2", DataType::Int32, false),
        Field::new("_CARDINALITY", DataType::Int64, true),
    ])
}

/// `$table_indexes` of `snapshot` (empty without one): partition (the partition row cast to
/// STRING, `{v1, v2}`), bucket, index type, file name, size, row count, the deletion vectors'
/// ranges, and the global-index columns (null for hash and deletion-vector files).
pub async fn table_indexes(table: &Table, snapshot: Option<&Snapshot>) -> Result<ReadOutput> {
    let mut partition = StringBuilder::new();
    let mut bucket = Int32Builder::new();
    let mut index_type = StringBuilder::new();
    let mut file_name = StringBuilder::new();
    let mut file_size = Int64Builder::new();
    let mut row_count = Int64Builder::new();
    // dv_ranges, built from plain columns (a StructBuilder would link a builder of every type
    // into the app): per index file its number of ranges (None: no list), then the ranges.
    let mut dv_lists: Vec<Option<usize>> = Vec::new();
    let (mut dv_file, mut dv_offset, mut dv_length, mut dv_cardinality) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut rows = 0usize;
    if let Some(name) = snapshot.and_then(|s| s.index_manifest.as_deref()) {
        let key = format!("{}/manifest/{name}", table.path());
        let entries = table.index_manifest(name).await?;
        let types = table
            .schema(snapshot.map_or(0, |s| s.schema_id))
            .await?
            .partition_types();
        for entry in entries.iter() {
            if !KNOWN_INDEX_TYPES.contains(&entry.index_type.as_str()) {
                return Err(Error::unsupported(
                    &key,
                    format!(
                        "index type '{}' in $table_indexes (index file {}): its global-index metadata is not read",
                        entry.index_type, entry.file_name
                    ),
                ));
            }
            let values = if types.is_empty() {
                Vec::new()
            } else {
                BinaryRow::decode_in(&key, &entry.partition, &types)?
            };
            partition.append_value(render::row_cast_to_string(&values));
            bucket.append_value(entry.bucket);
            index_type.append_value(&entry.index_type);
            file_name.append_value(&entry.file_name);
            file_size.append_value(entry.file_size);
            row_count.append_value(entry.row_count);
            match &entry.deletion_vectors {
                Some(dvs) => {
                    for dv in dvs {
                        dv_file.push(dv.data_file_name.clone());
                        dv_offset.push(dv.offset);
                        dv_length.push(dv.length);
                        dv_cardinality.push(dv.cardinality);
                    }
                    dv_lists.push(Some(dvs.len()));
                }
                None => dv_lists.push(None),
            }
            rows += 1;
        }
    }
    let ranges = StructArray::try_new(
        dv_range_fields(),
        vec![
            Arc::new(StringArray::from(dv_file)) as ArrayRef,
            Arc::new(Int32Array::from(dv_offset)),
            Arc::new(Int32Array::from(dv_length)),
            Arc::new(Int64Array::from(dv_cardinality)),
        ],
        None,
    )
    .map_err(|e| Error::Invalid(format!("building $table_indexes: {e}")))?;
    let element = Arc::new(Field::new(
        "element",
        DataType::Struct(dv_range_fields()),
        true,
    ));
    let dv_ranges = ListArray::try_new(
        element.clone(),
        OffsetBuffer::from_lengths(dv_lists.iter().map(|n| n.unwrap_or(0))),
        Arc::new(ranges),
        Some(NullBuffer::from_iter(dv_lists.iter().map(Option::is_some))),
    )
    .map_err(|e| Error::Invalid(format!("building $table_indexes: {e}")))?;
    let nulls_i64 = || -> ArrayRef { Arc::new(Int64Array::new_null(rows)) };
    let schema = Arc::new(Schema::new(vec![
        Field::new("partition", DataType::Utf8, true),
        Field::new("bucket", DataType::Int32, false),
        Field::new("index_type", DataType::Utf8, false),
        Field::new("file_name", DataType::Utf8, false),
        Field::new("file_size", DataType::Int64, false),
        Field::new("row_count", DataType::Int64, false),
        Field::new("dv_ranges", DataType::List(element), true),
        Field::new("row_range_start", DataType::Int64, true),
        Field::new("row_range_end", DataType::Int64, true),
        Field::new("index_field_id", DataType::Int32, true),
        Field::new("index_field_name", DataType::Utf8, true),
    ]));
    let columns: Vec<ArrayRef> = vec![
        Arc::new(partition.finish()),
        Arc::new(bucket.finish()),
        Arc::new(index_type.finish()),
        Arc::new(file_name.finish()),
        Arc::new(file_size.finish()),
        Arc::new(row_count.finish()),
        Arc::new(dv_ranges),
        nulls_i64(),
        nulls_i64(),
        Arc::new(Int32Array::new_null(rows)),
        Arc::new(StringArray::new_null(rows)),
    ];
    let batch = RecordBatch::try_new(schema.clone(), columns)
        .map_err(|e| Error::Invalid(format!("building $table_indexes: {e}")))?;
    Ok(ReadOutput {
        schema,
        batches: vec![batch],
    })
}
