//! Fields a data file lacks: their identity-partition value, else their `initial-default`.
//!
//! A data file is decoded onto the read fields by field id; a field whose id the file does not
//! hold (after name mapping) reads, by the spec's "Column Projection" order, the value of an
//! identity partition field on it ([`crate::partition_values`]), else its `initial-default`
//! (null when it has none), at the top level and inside structs. Such fields are decoded as
//! nullable, then replaced by their column.

use crate::name_mapping::{self, MappingSource};
use crate::spec::{FileFormat, Literal, NestedField, TableMetadata, Type};
use crate::{Error, Result};
use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, RecordBatch, RecordBatchOptions, StructArray};
use arrow_schema::{DataType as ArrowType, Field, Schema as ArrowSchema};
use lakescope_format::read::arrow_schema::{to_arrow_fields, to_arrow_type};
use lakescope_format::read::to_arrow_field;
use lakescope_format::spec::{DataField, TypeKind};
use parquet::arrow::PARQUET_FIELD_ID_META_KEY;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// Every field of the table's schemas by id (the current schema's definition first): a field's
/// `initial-default` never changes once the field exists.
pub fn fields_by_id(meta: &TableMetadata) -> HashMap<i32, NestedField> {
    let mut out = HashMap::new();
    let current = meta.current_schema().into_iter();
    let mut keep = |f: &NestedField| {
        out.entry(f.id).or_insert_with(|| f.clone());
    };
    for schema in current.chain(meta.schemas.iter()) {
        for top in &schema.fields {
            keep(top);
            top.field_type.visit_fields(&mut keep);
        }
    }
    out
}

/// The field ids a data file holds (anywhere in its schema; from the table's name mapping when
/// the file has none, see [`name_mapping`]); `None` when its format does not say (ORC columns
/// are matched by name, see [`crate::orc_names`]).
pub fn file_ids(
    key: &str,
    bytes: &bytes::Bytes,
    format: FileFormat,
    mapping: MappingSource<'_>,
) -> Result<Option<HashSet<i32>>> {
    let mut ids = HashSet::new();
    match format {
        FileFormat::Parquet => {
            let builder = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(
                bytes.clone(),
            )
            .map_err(|e| Error::corrupt(key, format!("invalid Parquet file: {e}")))?;
            let schema = name_mapping::arrow_schema_with_ids(key, builder.schema(), mapping)?;
            return Ok(Some(arrow_schema_ids(&schema)));
        }
        FileFormat::Avro => {
            let bytes = lakescope_format::read::avro_container::readable_now(key, &bytes[..])
                .map_err(Error::Data)?;
            let reader = lakescope_format::spec::avro_names::reader(&bytes[..])
                .map_err(|e| Error::corrupt(key, format!("invalid Avro file: {e}")))?;
            let schema = name_mapping::avro_schema_with_ids(key, reader.writer_schema(), mapping)?;
            avro_ids(&schema, &mut ids);
        }
        FileFormat::Orc | FileFormat::Puffin => return Ok(None),
    }
    Ok(Some(ids))
}

/// The field ids of an Arrow schema read from a Parquet file (ids in each field's metadata), at
/// every level.
pub fn arrow_schema_ids(schema: &arrow_schema::Schema) -> HashSet<i32> {
    let mut ids = HashSet::new();
    for f in schema.fields() {
        arrow_ids(f, &mut ids);
    }
    ids
}

fn arrow_ids(field: &Field, out: &mut HashSet<i32>) {
    if let Some(id) = field
        .metadata()
        .get(PARQUET_FIELD_ID_META_KEY)
        .and_then(|v| v.parse().ok())
    {
        out.insert(id);
    }
    match field.data_type() {
        ArrowType::Struct(children) => children.iter().for_each(|c| arrow_ids(c, out)),
        ArrowType::List(f) | ArrowType::LargeList(f) | ArrowType::FixedSizeList(f, _) => {
            arrow_ids(f, out)
        }
        ArrowType::Map(entries, _) => arrow_ids(entries, out),
        _ => {}
    }
}

fn avro_ids(schema: &apache_avro::Schema, out: &mut HashSet<i32>) {
    use apache_avro::Schema as S;
    match schema {
        S::Record(r) => {
            for f in &r.fields {
                if let Some(id) = f
                    .custom_attributes
                    .get("field-id")
                    .and_then(|v| v.as_i64())
                    .and_then(|v| i32::try_from(v).ok())
                {
                    out.insert(id);
                }
                avro_ids(&f.schema, out);
            }
        }
        S::Union(u) => u.variants().iter().for_each(|v| avro_ids(v, out)),
        S::Array(a) => avro_ids(&a.items, out),
        S::Map(m) => avro_ids(&m.types, out),
        _ => {}
    }
}

/// What a file's read needs: the read fields to decode it with (missing fields with a default,
/// or required, made nullable) and whether any column must be filled afterwards.
pub struct Fill<'a> {
    key: &'a str,
    /// The metadata file the defaults come from (named when one does not decode).
    metadata_key: String,
    present: HashSet<i32>,
    by_id: HashMap<i32, NestedField>,
    /// Identity-partition values of the file by source field id.
    partition: HashMap<i32, Option<Literal>>,
    /// The read fields as asked for.
    wanted: Vec<DataField>,
    /// The read fields to decode the file with.
    pub decode: Vec<DataField>,
}

fn has_default(f: &NestedField) -> bool {
    f.initial_default.as_ref().is_some_and(|v| !v.is_null())
}

impl<'a> Fill<'a> {
    /// Plans the filling of `read_fields` for the file `key` whose identity-partition values
    /// are `partition` (`None`: nothing to fill).
    pub fn plan(
        key: &'a str,
        metadata_key: &str,
        meta: &TableMetadata,
        present: Option<HashSet<i32>>,
        read_fields: &[DataField],
        partition: HashMap<i32, Option<Literal>>,
    ) -> Result<Option<Self>> {
        let by_id = fields_by_id(meta);
        let Some(present) = present else {
            // ORC: matched by name; a column the file lacks would silently read as null.
            if let Some(f) = read_fields
                .iter()
                .filter_map(|r| by_id.get(&r.id))
                .find_map(|f| defaulted(f))
            {
                return Err(Error::unsupported(
                    key,
                    format!(
                        "the initial-default of field '{}' (id {}) with ORC data files",
                        f.name, f.id
                    ),
                ));
            }
            crate::orc_names::check(key, meta, read_fields)?;
            // Identity-partition source columns read the partition value whether or not the
            // file has them (Java's ORC readers take every `PartitionUtil.constantsMap` value).
            let mut ids = Vec::new();
            read_fields
                .iter()
                .for_each(|f| crate::orc_names::read_ids(f, &mut ids));
            if !ids.iter().any(|id| partition.contains_key(id)) {
                return Ok(None);
            }
            ids.retain(|id| !partition.contains_key(id));
            return Self::plan(
                key,
                metadata_key,
                meta,
                Some(ids.into_iter().collect()),
                read_fields,
                partition,
            );
        };
        let mut fill = Self {
            key,
            metadata_key: metadata_key.to_string(),
            present,
            by_id,
            partition,
            wanted: read_fields.to_vec(),
            decode: read_fields.to_vec(),
        };
        let mut any = false;
        let mut decode = std::mem::take(&mut fill.decode);
        for f in &mut decode {
            any |= fill.relax(f)?;
        }
        fill.decode = decode;
        Ok(any.then_some(fill))
    }

    /// Makes `field` (or fields inside it) nullable where the file lacks them and they will be
    /// filled; `true` if anything will be.
    fn relax(&self, field: &mut DataField) -> Result<bool> {
        let Some(nf) = self.by_id.get(&field.id) else {
            return Ok(false);
        };
        if !self.present.contains(&field.id) {
            if self.partition.contains_key(&field.id) {
                relax_all(field);
                return Ok(true);
            }
            if !has_default(nf) && field.data_type.nullable {
                return Ok(false);
            }
            if !has_default(nf) {
                return Err(Error::corrupt(
                    self.key,
                    format!(
                        "required field '{}' (id {}) is missing from the data file and has no initial-default",
                        nf.name, nf.id
                    ),
                ));
            }
            relax_all(field);
            return Ok(true);
        }
        match &mut field.data_type.kind {
            TypeKind::Row(children) => {
                let mut any = false;
                for c in children {
                    any |= self.relax(c)?;
                }
                Ok(any)
            }
            _ => {
                // Inside lists and maps, struct fields with defaults are not filled: refuse
                // rather than read nulls.
                if let Some(missing) = nested_ids(&nf.field_type)
                    .into_iter()
                    .filter(|id| !self.present.contains(id))
                    .filter_map(|id| self.by_id.get(&id))
                    .find(|f| has_default(f))
                {
                    return Err(Error::unsupported(
                        self.key,
                        format!(
                            "the initial-default of field '{}' (id {}) inside a list or map",
                            missing.name, missing.id
                        ),
                    ));
                }
                Ok(false)
            }
        }
    }

    /// `batch`, decoded with [`Fill::decode`], with the missing fields filled and the schema of
    /// the read fields asked for.
    pub fn apply(&self, batch: RecordBatch) -> Result<RecordBatch> {
        let rows = batch.num_rows();
        let columns = self
            .wanted
            .iter()
            .zip(batch.columns())
            .map(|(f, c)| self.patch(f, c))
            .collect::<Result<Vec<_>>>()?;
        let schema = Arc::new(ArrowSchema::new(
            self.wanted.iter().map(to_arrow_field).collect::<Vec<_>>(),
        ));
        RecordBatch::try_new_with_options(
            schema,
            columns,
            &RecordBatchOptions::new().with_row_count(Some(rows)),
        )
        .map_err(|e| Error::corrupt(self.key, format!("filling column defaults: {e}")))
    }

    fn patch(&self, field: &DataField, array: &ArrayRef) -> Result<ArrayRef> {
        let Some(nf) = self.by_id.get(&field.id) else {
            return Ok(array.clone());
        };
        if !self.present.contains(&field.id) {
            if let Some(value) = self.partition.get(&field.id) {
                return crate::partition_values::column(
                    self.key,
                    nf,
                    value.as_ref(),
                    &to_arrow_type(&field.data_type),
                    array.len(),
                );
            }
            if !has_default(nf) {
                return Ok(array.clone());
            }
            return crate::defaults::column(
                &self.metadata_key,
                nf,
                nf.initial_default.as_ref(),
                &to_arrow_type(&field.data_type),
                array.len(),
            );
        }
        let TypeKind::Row(children) = &field.data_type.kind else {
            return Ok(array.clone());
        };
        let Some(st) = array.as_struct_opt() else {
            return Err(Error::corrupt(
                self.key,
                format!("field '{}' is not a struct", nf.name),
            ));
        };
        let columns = children
            .iter()
            .zip(st.columns())
            .map(|(c, a)| self.patch(c, a))
            .collect::<Result<Vec<_>>>()?;
        let out = StructArray::try_new_with_length(
            to_arrow_fields(children),
            columns,
            st.nulls().cloned(),
            st.len(),
        )
        .map_err(|e| Error::corrupt(self.key, format!("field '{}': {e}", nf.name)))?;
        Ok(Arc::new(out))
    }
}

/// The first field (itself or inside it) with a non-null `initial-default`.
fn defaulted(f: &NestedField) -> Option<&NestedField> {
    if has_default(f) {
        return Some(f);
    }
    match &f.field_type {
        Type::Struct(children) => children.iter().find_map(defaulted),
        _ => None,
    }
}

/// Ids of the struct fields anywhere inside a type.
fn nested_ids(t: &Type) -> Vec<i32> {
    let mut out = Vec::new();
    t.visit_fields(&mut |f| out.push(f.id));
    out
}

fn relax_all(field: &mut DataField) {
    field.data_type.nullable = true;
    if let TypeKind::Row(children) = &mut field.data_type.kind {
        children.iter_mut().for_each(relax_all);
    }
}
