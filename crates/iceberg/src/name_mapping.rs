//! Field ids of data files written without them: the table's name mapping (`schema.name-mapping.default`).
//!
//! Iceberg matches data file columns by field id. A Parquet or Avro file whose columns carry no
//! ids (imported files, engines that do not write them) is matched through the table's name
//! mapping: a column (by its name, inside structs by path; list elements as `element`, map
//! keys and values as `key` / `value`) takes the id of the mapped field that lists its name, and
//! a column the mapping does not name is not read. Without a name mapping such a file is
//! refused, as is a file where only some columns carry ids (Iceberg readers disagree on it).

use crate::table::Table;
use crate::{Error, Result};
use arrow_schema::{DataType as ArrowType, Field, Fields, Schema as ArrowSchema};
use parquet::arrow::PARQUET_FIELD_ID_META_KEY;
use serde::Deserialize;
use std::sync::Arc;

/// The table property holding the name mapping JSON.
pub const PROPERTY: &str = "schema.name-mapping.default";

/// One field of a name mapping.
#[derive(Debug, Clone, Deserialize)]
pub struct MappedField {
    /// The field id the names map to (may be absent).
    #[serde(rename = "field-id", default)]
    pub field_id: Option<i32>,
    /// The names a column of this field may have in a data file.
    pub names: Vec<String>,
    /// The mapping of the fields nested in this one.
    #[serde(default)]
    pub fields: Option<Vec<MappedField>>,
}

impl MappedField {
    fn children(&self) -> &[MappedField] {
        self.fields.as_deref().unwrap_or_default()
    }
}

/// A parsed name mapping.
#[derive(Debug, Clone)]
pub struct NameMapping(pub Vec<MappedField>);

/// The mapped field named `name` among `fields`.
pub fn find<'a>(fields: &'a [MappedField], name: &str) -> Option<&'a MappedField> {
    fields.iter().find(|f| f.names.iter().any(|n| n == name))
}

impl NameMapping {
    /// Parses the mapping JSON of the metadata file `metadata_key`.
    pub fn parse(metadata_key: &str, json: &str) -> Result<Self> {
        serde_json::from_str(json).map(NameMapping).map_err(|e| {
            Error::corrupt(
                metadata_key,
                format!("invalid name mapping ({PROPERTY}): {e}"),
            )
        })
    }
}

/// Where a data file's name mapping comes from: the table's property, parsed only when a file
/// lacks field ids (a malformed mapping fails only the reads that need it).
#[derive(Debug, Clone, Copy)]
pub struct MappingSource<'a> {
    metadata_key: &'a str,
    json: Option<&'a str>,
}

impl<'a> MappingSource<'a> {
    /// The name mapping of `table`'s current metadata.
    pub fn of(table: &'a Table) -> Self {
        Self {
            metadata_key: table.metadata_key(),
            json: table
                .metadata()
                .properties
                .get(PROPERTY)
                .map(String::as_str),
        }
    }

    /// The mapping JSON `json` (if any) of the metadata file `metadata_key`.
    pub fn from_json(metadata_key: &'a str, json: Option<&'a str>) -> Self {
        Self { metadata_key, json }
    }

    /// No name mapping (files without field ids are refused).
    pub fn none() -> Self {
        Self {
            metadata_key: "",
            json: None,
        }
    }

    /// The mapping for `data_key`, a file without field ids: refused without one.
    pub fn require(&self, data_key: &str) -> Result<NameMapping> {
        let Some(json) = self.json else {
            return Err(Error::unsupported(
                data_key,
                format!(
                    "the data file has no Iceberg field ids and the table has no name mapping \
                     ({PROPERTY}) to match its columns by"
                ),
            ));
        };
        NameMapping::parse(self.metadata_key, json)
    }
}

/// How many of a file's columns carry field ids.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IdCoverage {
    /// Every column (or the file has none).
    All,
    /// No column.
    None,
    /// Some columns only.
    Partial,
}

impl IdCoverage {
    /// Coverage from the counts of columns with and without ids.
    pub fn of(with: usize, without: usize) -> Self {
        match (with, without) {
            (_, 0) => IdCoverage::All,
            (0, _) => IdCoverage::None,
            _ => IdCoverage::Partial,
        }
    }
}

/// The error for a file where only some columns carry field ids.
pub fn partial_ids(data_key: &str) -> Error {
    Error::unsupported(
        data_key,
        "only some columns of the data file carry Iceberg field ids (Iceberg readers disagree \
         on how to match the others)",
    )
}

fn arrow_id(field: &Field) -> Option<&String> {
    field.metadata().get(PARQUET_FIELD_ID_META_KEY)
}

fn count_arrow(field: &Field, counts: &mut (usize, usize)) {
    if arrow_id(field).is_some() {
        counts.0 += 1;
    } else {
        counts.1 += 1;
    }
    count_arrow_children(field.data_type(), counts);
}

fn count_arrow_children(t: &ArrowType, counts: &mut (usize, usize)) {
    match t {
        ArrowType::Struct(children) => children.iter().for_each(|c| count_arrow(c, counts)),
        ArrowType::List(f) | ArrowType::LargeList(f) | ArrowType::FixedSizeList(f, _) => {
            count_arrow(f, counts)
        }
        // The entries struct of a map carries no id; its key and value do.
        ArrowType::Map(entries, _) => count_arrow_children(entries.data_type(), counts),
        _ => {}
    }
}

/// The id coverage of a Parquet file's (Arrow) schema.
pub fn arrow_coverage(schema: &ArrowSchema) -> IdCoverage {
    let mut counts = (0, 0);
    schema
        .fields()
        .iter()
        .for_each(|f| count_arrow(f, &mut counts));
    IdCoverage::of(counts.0, counts.1)
}

/// A Parquet file's (Arrow) schema with field ids: as written when every column has one; from
/// the table's name mapping when none has; refused otherwise.
pub fn arrow_schema_with_ids(
    data_key: &str,
    schema: &ArrowSchema,
    mapping: MappingSource<'_>,
) -> Result<ArrowSchema> {
    match arrow_coverage(schema) {
        IdCoverage::All => Ok(schema.clone()),
        IdCoverage::Partial => Err(partial_ids(data_key)),
        IdCoverage::None => {
            let mapping = mapping.require(data_key)?;
            let fields: Vec<Field> = schema
                .fields()
                .iter()
                .map(|f| map_arrow_field(f, find(&mapping.0, f.name())))
                .collect();
            Ok(ArrowSchema::new_with_metadata(
                fields,
                schema.metadata().clone(),
            ))
        }
    }
}

/// `field` with the id of `mapped` (none when unmapped), its nested fields mapped likewise.
fn map_arrow_field(field: &Field, mapped: Option<&MappedField>) -> Field {
    let children = mapped.map(MappedField::children).unwrap_or_default();
    let data_type = match field.data_type() {
        ArrowType::Struct(fields) => ArrowType::Struct(
            fields
                .iter()
                .map(|c| map_arrow_field(c, find(children, c.name())))
                .collect::<Fields>(),
        ),
        ArrowType::List(e) => {
            ArrowType::List(Arc::new(map_arrow_field(e, find(children, "element"))))
        }
        ArrowType::LargeList(e) => {
            ArrowType::LargeList(Arc::new(map_arrow_field(e, find(children, "element"))))
        }
        ArrowType::FixedSizeList(e, n) => {
            ArrowType::FixedSizeList(Arc::new(map_arrow_field(e, find(children, "element"))), *n)
        }
        ArrowType::Map(entries, sorted) => {
            let mapped_entries = match entries.data_type() {
                ArrowType::Struct(kv) if kv.len() == 2 => {
                    let key = map_arrow_field(&kv[0], find(children, "key"));
                    let value = map_arrow_field(&kv[1], find(children, "value"));
                    entries
                        .as_ref()
                        .clone()
                        .with_data_type(ArrowType::Struct(Fields::from(vec![key, value])))
                }
                _ => entries.as_ref().clone(),
            };
            ArrowType::Map(Arc::new(mapped_entries), *sorted)
        }
        other => other.clone(),
    };
    let mut metadata = field.metadata().clone();
    match mapped.and_then(|m| m.field_id) {
        Some(id) => {
            metadata.insert(PARQUET_FIELD_ID_META_KEY.to_string(), id.to_string());
        }
        None => {
            metadata.remove(PARQUET_FIELD_ID_META_KEY);
        }
    }
    field
        .clone()
        .with_data_type(data_type)
        .with_metadata(metadata)
}

fn avro_field_id(field: &apache_avro::schema::RecordField) -> Option<i32> {
    field
        .custom_attributes
        .get("field-id")
        .and_then(|v| v.as_i64())
        .and_then(|v| i32::try_from(v).ok())
}

fn count_avro(schema: &apache_avro::Schema, counts: &mut (usize, usize)) {
    use apache_avro::Schema as S;
    match schema {
        S::Record(r) => {
            for f in &r.fields {
                if avro_field_id(f).is_some() {
                    counts.0 += 1;
                } else {
                    counts.1 += 1;
                }
                count_avro(&f.schema, counts);
            }
        }
        S::Union(u) => u.variants().iter().for_each(|v| count_avro(v, counts)),
        S::Array(a) => count_avro(&a.items, counts),
        S::Map(m) => count_avro(&m.types, counts),
        _ => {}
    }
}

/// An Avro data file's writer schema with `field-id`s on its record fields: as written when
/// every record field has one; from the table's name mapping when none has; refused otherwise.
pub fn avro_schema_with_ids(
    data_key: &str,
    schema: &apache_avro::Schema,
    mapping: MappingSource<'_>,
) -> Result<apache_avro::Schema> {
    let mut counts = (0, 0);
    count_avro(schema, &mut counts);
    match IdCoverage::of(counts.0, counts.1) {
        IdCoverage::All => Ok(schema.clone()),
        IdCoverage::Partial => Err(partial_ids(data_key)),
        IdCoverage::None => {
            let mapping = mapping.require(data_key)?;
            map_avro(data_key, schema, &mapping.0)
        }
    }
}

/// `schema` (whose record fields are matched against `mapped`) with mapped `field-id`s.
fn map_avro(
    data_key: &str,
    schema: &apache_avro::Schema,
    mapped: &[MappedField],
) -> Result<apache_avro::Schema> {
    use apache_avro::schema::{ArraySchema, MapSchema, UnionSchema};
    use apache_avro::Schema as S;
    let nested = |name: &str| {
        find(mapped, name)
            .map(MappedField::children)
            .unwrap_or_default()
    };
    Ok(match schema {
        S::Record(r) => {
            let mut record = r.clone();
            for f in &mut record.fields {
                let m = find(mapped, &f.name);
                if let Some(id) = m.and_then(|m| m.field_id) {
                    f.custom_attributes
                        .insert("field-id".into(), serde_json::Value::from(id));
                }
                let children = m.map(MappedField::children).unwrap_or_default();
                f.schema = map_avro(data_key, &f.schema, children)?;
            }
            S::Record(record)
        }
        S::Union(u) => {
            let variants = u
                .variants()
                .iter()
                .map(|v| map_avro(data_key, v, mapped))
                .collect::<Result<Vec<_>>>()?;
            S::Union(
                UnionSchema::new(variants)
                    .map_err(|e| Error::corrupt(data_key, format!("invalid Avro union: {e}")))?,
            )
        }
        S::Array(a) => S::Array(ArraySchema {
            items: Box::new(map_avro(data_key, &a.items, nested("element"))?),
            ..a.clone()
        }),
        S::Map(m) => S::Map(MapSchema {
            types: Box::new(map_avro(data_key, &m.types, nested("value"))?),
            ..m.clone()
        }),
        other => other.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    const MAPPING: &str = r#"[
        {"field-id": 1, "names": ["id", "ident"]},
        {"field-id": 2, "names": ["s"], "fields": [{"field-id": 3, "names": ["a"]}]},
        {"field-id": 4, "names": ["tags"], "fields": [{"field-id": 5, "names": ["element"]}]},
        {"field-id": 6, "names": ["m"], "fields": [
            {"field-id": 7, "names": ["key"]}, {"field-id": 8, "names": ["value"]}]},
        {"names": ["no_id"]}
    ]"#;

    fn id(f: &Field) -> Option<i32> {
        arrow_id(f).and_then(|v| v.parse().ok())
    }

    #[test]
    fn arrow_fields_take_mapped_ids_by_path() {
        let st = ArrowType::Struct(Fields::from(vec![
            Field::new("a", ArrowType::Int32, true),
            Field::new("z", ArrowType::Int32, true),
        ]));
        let list = ArrowType::List(Arc::new(Field::new("item", ArrowType::Utf8, true)));
        let entries = Field::new(
            "key_value",
            ArrowType::Struct(Fields::from(vec![
                Field::new("k", ArrowType::Utf8, false),
                Field::new("v", ArrowType::Int32, true),
            ])),
            false,
        );
        let schema = ArrowSchema::new(vec![
            Field::new("ident", ArrowType::Int64, true),
            Field::new("s", st, true),
            Field::new("tags", list, true),
            Field::new("m", ArrowType::Map(Arc::new(entries), false), true),
            Field::new("no_id", ArrowType::Int32, true),
            Field::new("other", ArrowType::Int32, true),
        ]);
        assert_eq!(arrow_coverage(&schema), IdCoverage::None);
        let source = MappingSource {
            metadata_key: "m.json",
            json: Some(MAPPING),
        };
        let out = arrow_schema_with_ids("f.parquet", &schema, source).unwrap();
        let f = out.fields();
        assert_eq!(id(&f[0]), Some(1));
        assert_eq!(id(&f[1]), Some(2));
        let ArrowType::Struct(children) = f[1].data_type() else {
            panic!()
        };
        assert_eq!((id(&children[0]), id(&children[1])), (Some(3), None));
        let ArrowType::List(e) = f[2].data_type() else {
            panic!()
        };
        assert_eq!(id(e), Some(5));
        let ArrowType::Map(entries, _) = f[3].data_type() else {
            panic!()
        };
        let ArrowType::Struct(kv) = entries.data_type() else {
            panic!()
        };
        assert_eq!((id(&kv[0]), id(&kv[1])), (Some(7), Some(8)));
        assert_eq!((id(&f[4]), id(&f[5])), (None, None));
        // Without a mapping: refused naming the file; with some ids only: refused too.
        let err = arrow_schema_with_ids("f.parquet", &schema, MappingSource::none())
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("f.parquet")
                && err.contains("no Iceberg field ids")
                && err.contains(PROPERTY),
            "{err}"
        );
        let partial = ArrowSchema::new(vec![
            Field::new("a", ArrowType::Int32, true).with_metadata(HashMap::from([(
                PARQUET_FIELD_ID_META_KEY.to_string(),
                "1".to_string(),
            )])),
            Field::new("b", ArrowType::Int32, true),
        ]);
        let err = arrow_schema_with_ids("p.parquet", &partial, source)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("p.parquet") && err.contains("only some"),
            "{err}"
        );
        let bad = MappingSource {
            metadata_key: "m.json",
            json: Some("{"),
        };
        let err = arrow_schema_with_ids("f.parquet", &schema, bad)
            .unwrap_err()
            .to_string();
        assert!(err.contains("m.json") && err.contains(PROPERTY), "{err}");
    }

    #[test]
    fn avro_fields_take_mapped_ids() {
        let schema = apache_avro::Schema::parse_str(
            r#"{"type":"record","name":"r","fields":[
                {"name":"ident","type":"long"},
                {"name":"s","type":["null",{"type":"record","name":"s","fields":[
                    {"name":"a","type":"int"}]}]},
                {"name":"other","type":"int"}]}"#,
        )
        .unwrap();
        let source = MappingSource {
            metadata_key: "m.json",
            json: Some(MAPPING),
        };
        let out = avro_schema_with_ids("f.avro", &schema, source).unwrap();
        let apache_avro::Schema::Record(r) = &out else {
            panic!()
        };
        let ids: Vec<_> = r.fields.iter().map(avro_field_id).collect();
        assert_eq!(ids, vec![Some(1), Some(2), None]);
        let apache_avro::Schema::Union(u) = &r.fields[1].schema else {
            panic!()
        };
        let apache_avro::Schema::Record(s) = &u.variants()[1] else {
            panic!()
        };
        assert_eq!(avro_field_id(&s.fields[0]), Some(3));
        let err = avro_schema_with_ids("f.avro", &schema, MappingSource::none())
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("f.avro") && err.contains("no Iceberg field ids"),
            "{err}"
        );
    }
}
