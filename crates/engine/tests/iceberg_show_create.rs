//! SHOW CREATE TABLE / DESCRIBE of Iceberg tables: for every table of the shared corpus, the
//! printed Flink DDL parses with lakescope's parser and defines the same columns, identifier
//! fields, partition transforms and properties; a changed type, nullability or doc is caught.

use lakescope_engine::iceberg_ddl::{definition, describe, show_create_table};
use lakescope_iceberg::convert::to_data_type;
use lakescope_iceberg::spec::transform::Transform;
use lakescope_iceberg::spec::{TableMetadata, Type};
use lakescope_iceberg::write::definition::{initial_metadata, FORMAT_VERSION};
use lakescope_sql::show::flink_type;
use lakescope_sql::{parse_data_type, parse_statement, validate, Statement, TableFormat};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/iceberg")
}

/// Every table of the corpus catalog: name and current metadata.
fn corpus_tables() -> Vec<(String, TableMetadata)> {
    let root = corpus();
    let catalog: Value =
        serde_json::from_slice(&std::fs::read(root.join("catalog.json")).unwrap()).unwrap();
    let tables = catalog["tables"].as_object().unwrap();
    // The catalog lists every table folder of the warehouse.
    let mut folders = 0;
    for ns in std::fs::read_dir(root.join("warehouse")).unwrap() {
        for t in std::fs::read_dir(ns.unwrap().path()).unwrap() {
            if t.unwrap().path().join("metadata").is_dir() {
                folders += 1;
            }
        }
    }
    assert_eq!(tables.len(), folders, "catalog.json vs warehouse folders");
    tables
        .iter()
        .map(|(name, t)| {
            let file = t["current_metadata"].as_str().unwrap();
            let bytes = std::fs::read(root.join(file)).unwrap();
            (name.clone(), TableMetadata::parse(file, &bytes).unwrap())
        })
        .collect()
}

/// A type's JSON without field ids (DDL does not carry them). Flink has no UUID type: Iceberg's
/// FlinkSchemaUtil maps uuid to BINARY(16), which defines fixed[16].
fn type_shape(t: &Type) -> Value {
    fn strip(v: &mut Value) {
        match v {
            Value::Object(m) => {
                for id in ["id", "element-id", "key-id", "value-id"] {
                    m.remove(id);
                }
                m.values_mut().for_each(strip);
            }
            Value::Array(a) => a.iter_mut().for_each(strip),
            Value::String(s) if s == "uuid" => *s = "fixed[16]".into(),
            _ => {}
        }
    }
    let mut v = t.to_json();
    strip(&mut v);
    v
}

/// What DDL can say of a table: columns (name, required, doc, type), identifier columns,
/// partition fields (source column, transform; `void` fields partition nothing), properties.
fn shape(m: &TableMetadata) -> String {
    let schema = m.current_schema().unwrap();
    let name = |id: i32| schema.find_field(id).map(|f| f.name.clone());
    let columns: Vec<_> = schema
        .fields
        .iter()
        .map(|f| (&f.name, f.required, &f.doc, type_shape(&f.field_type)))
        .collect();
    let keys: Vec<_> = schema
        .identifier_field_ids
        .iter()
        .map(|id| name(*id))
        .collect();
    let spec = m.spec(m.default_spec_id.unwrap_or(0)).unwrap();
    let partition: Vec<_> = spec
        .fields
        .iter()
        .filter(|f| Transform::parse(&f.transform) != Some(Transform::Void))
        .map(|f| (name(f.source_id), Transform::parse(&f.transform)))
        .collect();
    format!("columns {columns:?}\nkeys {keys:?}\npartition {partition:?}")
}

/// The table the DDL defines, as lakescope would create it, and the WITH options it passes.
fn reparse(ddl: &str) -> (TableMetadata, BTreeMap<String, String>) {
    let statement = parse_statement(ddl).unwrap_or_else(|e| panic!("{e:?}\n{ddl}"));
    validate(
        &statement,
        &lakescope_sql::ValidationContext {
            format: TableFormat::Iceberg,
            existing: None,
        },
    )
    .unwrap_or_else(|e| panic!("{e:?}\n{ddl}"));
    let Statement::CreateTable(create) = statement else {
        panic!("not a CREATE TABLE: {ddl}")
    };
    let mut def = definition(&create).unwrap();
    let options = def.properties.clone();
    // lakescope writes v2 only: the version is compared as an option, the rest built as v2.
    def.properties.remove(FORMAT_VERSION);
    let built = initial_metadata("t", "file:///t", &def, "u".into(), 0)
        .unwrap_or_else(|e| panic!("{e}\n{ddl}"));
    (built, options)
}

fn expected_options(m: &TableMetadata) -> BTreeMap<String, String> {
    let mut options = m.properties.clone();
    options.insert(FORMAT_VERSION.into(), m.format_version.to_string());
    options
}

#[test]
fn every_corpus_iceberg_table_round_trips() {
    let tables = corpus_tables();
    assert!(tables.len() >= 6, "{} tables", tables.len());
    let mut wrong = Vec::new();
    for (name, m) in &tables {
        let parts: Vec<&str> = name.split('.').collect();
        let ddl = show_create_table(&parts, m).unwrap();
        let (built, options) = reparse(&ddl);
        if shape(&built) != shape(m) || options != expected_options(m) {
            wrong.push(format!(
                "{name}:\n table {}\n{:?}\n ddl   {}\n{options:?}\n{ddl}",
                shape(m),
                expected_options(m),
                shape(&built)
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n\n"));
}

/// A DDL that maps a column wrongly (another type, nullability or doc) does not pass the check.
#[test]
fn a_wrong_mapping_is_caught() {
    let mut checked = 0;
    for (name, m) in corpus_tables() {
        let parts: Vec<&str> = name.split('.').collect();
        let schema_at = m
            .schemas
            .iter()
            .position(|s| Some(s.schema_id) == m.current_schema_id)
            .unwrap();
        for i in 0..m.schemas[schema_at].fields.len() {
            let mutations: [fn(&mut lakescope_iceberg::spec::NestedField); 3] = [
                |f| {
                    f.field_type = match f.field_type {
                        Type::Timestamp => Type::Timestamptz,
                        Type::Long => Type::Int,
                        _ => Type::Long,
                    }
                },
                |f| f.required = !f.required,
                |f| f.doc = Some(format!("not {:?}", f.doc)),
            ];
            for mutate in mutations {
                let mut wrong = m.clone();
                mutate(&mut wrong.schemas[schema_at].fields[i]);
                let key = wrong.schemas[schema_at].fields[i].id;
                if wrong.schemas[schema_at].identifier_field_ids.contains(&key)
                    && !wrong.schemas[schema_at].fields[i].required
                {
                    continue; // an optional identifier field cannot exist
                }
                let (built, _) = reparse(&show_create_table(&parts, &wrong).unwrap());
                assert_ne!(shape(&built), shape(&m), "{name} column {i}");
                checked += 1;
            }
        }
    }
    assert!(checked > 40, "{checked}");
}

#[test]
fn describe_lists_flink_columns() {
    for (name, m) in corpus_tables() {
        let schema = m.current_schema().unwrap();
        let columns = describe(&m).unwrap();
        assert_eq!(columns.len(), schema.fields.len(), "{name}");
        let keys: Vec<&str> = schema
            .identifier_field_ids
            .iter()
            .filter_map(|id| schema.find_field(*id).map(|f| f.name.as_str()))
            .collect();
        for (c, f) in columns.iter().zip(&schema.fields) {
            assert_eq!(c.name, f.name);
            assert_eq!(c.nullable, !f.required, "{name}.{}", f.name);
            // The type column is the nullable Flink type of the field.
            let parsed = parse_data_type(&c.flink_type).unwrap();
            assert!(parsed.nullable, "{}", c.flink_type);
            let expected = to_data_type(&f.field_type, false).unwrap();
            // Written again, so that nested field ids (not part of a type's text) do not count.
            assert_eq!(
                flink_type(&parsed),
                flink_type(&expected),
                "{name}.{}",
                f.name
            );
            let key = keys.contains(&f.name.as_str());
            assert_eq!(
                c.key,
                key.then(|| format!("PRI({})", keys.join(", "))),
                "{name}.{}",
                f.name
            );
        }
    }
}
