//! SHOW CREATE TABLE round trip: parse(show(schema)) defines the same schema, for every corpus schema file.

use lakescope_format::spec::schema::TableSchema;
use lakescope_format::spec::types::{DataType, TypeKind};
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
                .map(|f| lakescope_format::spec::types::DataField {
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

/// What a declared CREATE TABLE says, without source positions.
fn declared_shape(t: &lakescope_sql::ast::CreateTable) -> String {
    use lakescope_sql::ast::ColumnKind;
    let columns: Vec<String> = t
        .columns
        .iter()
        .map(|c| {
            let kind = match &c.kind {
                ColumnKind::Physical(dt) => format!("{dt}"),
                ColumnKind::Computed { text, .. } => format!("AS {text}"),
                ColumnKind::Metadata {
                    data_type,
                    key,
                    is_virtual,
                } => format!("{data_type} METADATA {key:?} {is_virtual}"),
            };
            format!("{} {kind} {:?}", c.name.name, c.comment)
        })
        .collect();
    format!(
        "temporary {} columns {columns:?} watermark {:?} pk {:?} comment {:?} partition {:?} options {:?}",
        t.temporary,
        t.watermark.as_ref().map(|w| (&w.column.name, &w.text)),
        t.primary_key
            .as_ref()
            .map(|p| p.columns.iter().map(|c| c.name.clone()).collect::<Vec<_>>()),
        t.comment,
        t.partitioned_by
            .iter()
            .map(|p| (p.column.name.clone(), p.transform))
            .collect::<Vec<_>>(),
        t.options
            .iter()
            .map(|o| (o.key.clone(), o.value.clone()))
            .collect::<Vec<_>>()
    )
}

/// SHOW CREATE TABLE of a declared connector table (computed, metadata and physical columns,
/// watermark, key, comment, partition, options) parses back to the same declaration.
#[test]
fn declared_connector_table_round_trips() {
    let sql = "CREATE TEMPORARY TABLE k (id BIGINT COMMENT 'the id', `na``me` STRING, \
        ts TIMESTAMP(3) METADATA FROM 'timestamp' VIRTUAL, part INT METADATA, \
        total AS id * 2, pt AS PROCTIME(), r ROW<a INT NOT NULL, b ARRAY<STRING>>, \
        WATERMARK FOR ts AS ts - INTERVAL '5' SECOND, PRIMARY KEY (id) NOT ENFORCED) \
        COMMENT 'it''s kafka' PARTITIONED BY (part) \
        WITH ('connector' = 'kafka', 'topic' = 'o', 'format' = 'json')";
    let Statement::CreateTable(declared) = parse_statement(sql).unwrap() else {
        panic!("not a CREATE TABLE")
    };
    let ddl = lakescope_sql::show::show_declared(&["default_catalog", "db", "k"], &declared);
    let Statement::CreateTable(again) =
        parse_statement(&ddl).unwrap_or_else(|e| panic!("{e:?}\n{ddl}"))
    else {
        panic!("not a CREATE TABLE: {ddl}")
    };
    assert_eq!(again.name.parts, vec!["default_catalog", "db", "k"]);
    assert_eq!(declared_shape(&again), declared_shape(&declared), "{ddl}");
    // A different declaration does not pass for the same one.
    let other = sql.replace("id * 2", "id * 3");
    let Statement::CreateTable(other) = parse_statement(&other).unwrap() else {
        panic!("not a CREATE TABLE")
    };
    assert_ne!(declared_shape(&other), declared_shape(&declared));
}
