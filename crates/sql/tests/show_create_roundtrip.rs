//! SHOW CREATE TABLE round trip: parse(show(schema)) defines the same schema, for every corpus schema file.

use lakescope_paimon::spec::schema::TableSchema;
use lakescope_paimon::spec::types::{DataType, TypeKind};
use lakescope_sql::ast::Statement;
use lakescope_sql::{
    create_table_schema, parse_statement, show_create_table, validate, ValidationContext,
};

const WAREHOUSE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../../shared/corpus/paimon/warehouse"
);

/// Field ids are not part of DDL: compare names, types (nested too), comments.
fn strip_ids(t: &DataType) -> DataType {
    let kind = match &t.kind {
        TypeKind::Array(e) => TypeKind::Array(Box::new(strip_ids(e))),
        TypeKind::Multiset(e) => TypeKind::Multiset(Box::new(strip_ids(e))),
        TypeKind::Map(k, v) => TypeKind::Map(Box::new(strip_ids(k)), Box::new(strip_ids(v))),
        TypeKind::Row(fs) => TypeKind::Row(
            fs.iter()
                .map(|f| lakescope_paimon::spec::types::DataField {
                    id: 0,
                    data_type: strip_ids(&f.data_type),
                    ..f.clone()
                })
                .collect(),
        ),
        k => k.clone(),
    };
    DataType {
        nullable: t.nullable,
        kind,
    }
}

fn shape(s: &TableSchema) -> impl PartialEq + std::fmt::Debug {
    (
        s.fields
            .iter()
            .map(|f| {
                (
                    f.name.clone(),
                    strip_ids(&f.data_type),
                    f.description.clone(),
                )
            })
            .collect::<Vec<_>>(),
        s.partition_keys.clone(),
        s.primary_keys.clone(),
        s.options.clone(),
        s.comment.clone(),
    )
}

#[test]
fn every_corpus_schema_round_trips() {
    let mut n = 0;
    let mut dirs: Vec<_> = std::fs::read_dir(WAREHOUSE)
        .expect("corpus warehouse")
        .flatten()
        .collect();
    dirs.sort_by_key(|d| d.path());
    for db in dirs {
        let Ok(tables) = std::fs::read_dir(db.path()) else {
            continue;
        };
        for table in tables.flatten() {
            let Ok(files) = std::fs::read_dir(table.path().join("schema")) else {
                continue;
            };
            for f in files.flatten() {
                let bytes = std::fs::read(f.path()).expect("schema file");
                let schema = TableSchema::from_json(&bytes).expect("schema json");
                let name = table.file_name().to_string_lossy().to_string();
                let ddl = show_create_table(&["db", &name], &schema);
                let stmt = parse_statement(&ddl)
                    .unwrap_or_else(|e| panic!("{}: {e}\n{ddl}", f.path().display()));
                validate(&stmt, &ValidationContext::default())
                    .unwrap_or_else(|e| panic!("{}: {e}\n{ddl}", f.path().display()));
                let Statement::CreateTable(t) = stmt else {
                    panic!("not a CREATE TABLE")
                };
                let back = create_table_schema(&t).expect("schema");
                assert_eq!(
                    shape(&back),
                    shape(&schema),
                    "{}\n{ddl}",
                    f.path().display()
                );
                n += 1;
            }
        }
    }
    println!("{n} schema files round-trip");
    assert!(n >= 30, "expected the corpus' 30 schema files, found {n}");
}

#[test]
fn nested_types_and_comments_round_trip() {
    let sql = "CREATE TABLE t (id INT NOT NULL COMMENT 'the ''id''', tags ARRAY<ROW<`k` STRING 'key', v TIMESTAMP(3) WITH LOCAL TIME ZONE>>, m MAP<STRING NOT NULL, DECIMAL(38, 10)>, b BYTES, c CHAR(3), t TIME(3), ms MULTISET<INT>, PRIMARY KEY (id) NOT ENFORCED) COMMENT 'tbl' PARTITIONED BY (c) WITH ('bucket' = '-1')";
    let Statement::CreateTable(t) = parse_statement(sql).unwrap() else {
        panic!()
    };
    let schema = create_table_schema(&t).unwrap();
    let ddl = show_create_table(&["t"], &schema);
    let Statement::CreateTable(t2) = parse_statement(&ddl).unwrap() else {
        panic!()
    };
    assert_eq!(
        shape(&create_table_schema(&t2).unwrap()),
        shape(&schema),
        "{ddl}"
    );
    assert_eq!(schema.highest_field_id, 8);
}
