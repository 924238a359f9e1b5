//! ALTER TABLE ... ADD / DROP PARTITION FIELD (Spark's Iceberg partition-spec evolution):
//! parsed as terms, refused for Paimon tables by validation.

use lakescope_sql::ast::{AlterAction, Transform};
use lakescope_sql::{parse_statement, validate, Statement, TableFormat, ValidationContext};

fn alter(sql: &str) -> lakescope_sql::ast::AlterTable {
    match parse_statement(sql).unwrap() {
        Statement::AlterTable(a) => a,
        other => panic!("not ALTER TABLE: {other:?}"),
    }
}

#[test]
fn add_and_drop_partition_field_terms() {
    let a = alter("ALTER TABLE db.t ADD PARTITION FIELD bucket(16, id)");
    let AlterAction::AddPartitionField(f) = &a.action else {
        panic!("{a:?}")
    };
    assert_eq!(
        (f.column.name.as_str(), f.transform),
        ("id", Some(Transform::Bucket(16)))
    );
    let a = alter("ALTER TABLE t DROP PARTITION FIELD days(ts)");
    let AlterAction::DropPartitionField(f) = &a.action else {
        panic!("{a:?}")
    };
    assert_eq!(
        (f.column.name.as_str(), f.transform),
        ("ts", Some(Transform::Days))
    );
    let a = alter("ALTER TABLE t DROP PARTITION FIELD kind");
    let AlterAction::DropPartitionField(f) = &a.action else {
        panic!("{a:?}")
    };
    assert_eq!((f.column.name.as_str(), f.transform), ("kind", None));
    // The older forms still parse as before.
    assert!(matches!(
        alter("ALTER TABLE t DROP PARTITION (dt = '1')").action,
        AlterAction::DropPartitions { .. }
    ));
    assert!(parse_statement("ALTER TABLE t ADD PARTITION FIELD bucket(16, id) extra").is_err());
    assert!(parse_statement("ALTER TABLE t ADD PARTITION FIELD").is_err());
}

#[test]
fn paimon_tables_refuse_partition_field_changes() {
    let statement = &parse_statement("ALTER TABLE t ADD PARTITION FIELD kind").unwrap();
    let paimon = ValidationContext {
        format: TableFormat::Paimon,
        existing: None,
    };
    let err = validate(statement, &paimon).unwrap_err();
    assert!(err.message.contains("Iceberg"), "{}", err.message);
    let iceberg = ValidationContext {
        format: TableFormat::Iceberg,
        existing: None,
    };
    assert!(validate(statement, &iceberg).is_ok());
}
