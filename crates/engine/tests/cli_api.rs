//! The engine calls the `lakescope` CLI makes instead of reaching into the format crates:
//! filter and incremental-range parsing, planning a read (`Catalog::plan_scan`), the benchmarks'
//! full read (`checksum::touch_table`), a table definition from Arrow fields, inserting a file
//! into a table of either format (`Catalog::insert_file`) and the statements of a SQL script.
//! Each is checked against an independent read of the same table (the demo lake, or a table
//! written here and read back through `Catalog::scan`).

use arrow_schema::{DataType, Field, Schema};
use async_trait::async_trait;
use bytes::Bytes;
use lakescope_engine::canonical::batches_to_lines;
use lakescope_engine::checksum::{touch, touch_table};
use lakescope_engine::scan::{parse_filter, ScanRequest};
use lakescope_engine::session::statements;
use lakescope_engine::upload::{FileKind, FileSource, Upload};
use lakescope_engine::write::{definition_from_arrow, SystemEnv};
use lakescope_engine::{Catalog, TableRef, Version};
use lakescope_storage::{LocalStore, ObjectStore};
use lakescope_test_support::engine::{local_session, sql};
use lakescope_test_support::{repo, temp_dir};
use std::rc::Rc;

fn demo() -> Catalog {
    let warehouse = repo().join("public/demo/warehouse");
    Catalog::new(Rc::new(LocalStore::new(&warehouse)) as Rc<dyn ObjectStore>)
}

fn name(text: &str) -> TableRef {
    text.parse().unwrap()
}

/// A file held in memory.
struct InMemory(Bytes);

#[async_trait(?Send)]
impl FileSource for InMemory {
    fn size(&self) -> u64 {
        self.0.len() as u64
    }
    async fn read(&self, start: u64, end: u64) -> Result<Bytes, String> {
        Ok(self.0.slice(start as usize..end as usize))
    }
}

/// Every row of `table` at its latest snapshot as canonical JSON lines, sorted.
async fn lines(catalog: &Catalog, table: &TableRef) -> Vec<String> {
    let read = catalog.scan(table, &ScanRequest::default()).await.unwrap();
    batches_to_lines(&read.batches).unwrap()
}

#[test]
fn filters_and_incremental_ranges_parse_or_name_what_is_wrong() {
    assert!(parse_filter("a = 'x' AND n >= 3").is_ok());
    let bad = parse_filter("a = = 1").unwrap_err().to_string();
    assert!(bad.contains('='), "{bad}");

    assert_eq!(
        Version::parse_incremental_between("1, 3", Some("DELTA")).unwrap(),
        Version::incremental_between(
            "1,3",
            Some(lakescope_paimon::incremental::IncrementalMode::Delta)
        )
    );
    assert_eq!(
        Version::parse_incremental_between("13", None).unwrap(),
        None
    );
    let unknown = Version::parse_incremental_between("1,3", Some("sideways"))
        .unwrap_err()
        .to_string();
    assert!(unknown.contains("'sideways'"), "{unknown}");
}

#[test]
fn a_script_splits_into_numbered_statements_as_a_session_runs_them() {
    let script = "CREATE DATABASE d;\nUSE d;\n  SELECT 1";
    let numbered: Vec<(usize, u64)> = statements(script)
        .iter()
        .map(|p| (p.number, p.pos.line))
        .collect();
    assert_eq!(numbered, [(1, 1), (2, 2), (3, 3)]);
}

#[tokio::test]
async fn a_plan_counts_the_live_files_the_files_tab_lists_and_a_filter_prunes_partitions() {
    let catalog = demo();
    let table_ref = name("corpus.pk_dedup");
    let listed = catalog
        .table(&table_ref)
        .await
        .unwrap()
        .files(&table_ref, &Version::Latest)
        .await
        .unwrap();
    let plan = catalog
        .plan_scan(&table_ref, None, None)
        .await
        .unwrap()
        .expect("the table has snapshots");
    assert_eq!(Some(plan.snapshot), listed.snapshot_id);
    assert_eq!(plan.files, listed.files.len());
    let bytes: i64 = listed.files.iter().map(|f| f.size).sum();
    assert_eq!(plan.data_bytes, bytes as u64);
    assert!(plan.splits >= 1 && plan.splits <= plan.files);

    let partition = &listed.files[0].partition;
    let (column, value) = partition.split_once('=').unwrap();
    let in_partition = listed
        .files
        .iter()
        .filter(|f| &f.partition == partition)
        .count();
    assert!(
        in_partition < listed.files.len(),
        "pick a table with 2+ partitions"
    );
    let filter = parse_filter(&format!("{column} = '{value}'")).unwrap();
    let pruned = catalog
        .plan_scan(&table_ref, None, Some(&filter))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(pruned.files, in_partition);

    let first = catalog
        .plan_scan(&table_ref, Some(1), None)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(first.snapshot, 1);
    let missing = catalog.plan_scan(&table_ref, Some(999), None).await;
    assert!(missing.is_err(), "snapshot 999 does not exist");
}

#[tokio::test]
async fn a_full_read_touches_what_a_scan_returns() {
    let catalog = demo();
    for (table, snapshot) in [("corpus.pk_dedup", None), ("corpus.pk_dedup", Some(2))] {
        let table_ref = name(table);
        let touched = touch_table(&catalog, &table_ref, snapshot).await.unwrap();
        let at = snapshot.map_or(Version::Latest, Version::SnapshotId);
        let read = catalog
            .scan(
                &table_ref,
                &ScanRequest {
                    at,
                    ..Default::default()
                },
            )
            .await
            .unwrap();
        let (rows, checksum) = touch(&read.batches);
        assert!(rows > 0);
        assert_eq!((touched.rows, touched.checksum), (rows, checksum));
        assert!(touched.batches >= 1);
    }
}

#[tokio::test]
async fn a_paimon_table_defined_from_arrow_fields_takes_a_csv_insert() {
    let dir = temp_dir("lakescope-cli-api", "paimon");
    let catalog = Catalog::new(Rc::new(LocalStore::new(&dir)) as Rc<dyn ObjectStore>);
    let schema = Schema::new(vec![
        Field::new("id", DataType::Int64, false),
        Field::new("qty", DataType::Int32, true),
        Field::new("name", DataType::Utf8, true),
    ]);
    let definition = definition_from_arrow(&schema, &["id"], &[("bucket", "2")]).unwrap();
    let table_ref = catalog.create_table("db", "t", &definition).await.unwrap();
    assert_eq!(
        catalog.plan_scan(&table_ref, None, None).await.unwrap(),
        None
    );

    let table = catalog.table(&table_ref).await.unwrap();
    let fields: Vec<(String, String, bool)> = table.schemas().await.unwrap().versions[0]
        .fields
        .iter()
        .map(|f| (f.name.clone(), f.type_text.clone(), f.nullable))
        .collect();
    let want = [
        ("id", "BIGINT", false),
        ("qty", "INT", true),
        ("name", "STRING", true),
    ];
    for ((name, type_text, nullable), (n, t, null)) in fields.iter().zip(want) {
        assert_eq!(name, n);
        assert!(type_text.starts_with(t), "{name}: {type_text}");
        assert_eq!(*nullable, null, "{name}");
    }
    assert_eq!(fields.len(), 3);

    let csv = "id,qty,name\n1,10,a\n2,20,b\n1,11,c\n";
    let inserted = insert_csv(&catalog, &table_ref, csv).await;
    assert_eq!((inserted.rows, inserted.snapshot), (3, Some(1)));
    assert_eq!(inserted.retries, 0);
    assert_eq!(
        lines(&catalog, &table_ref).await,
        [
            r#"{"id":1,"qty":11,"name":"c"}"#,
            r#"{"id":2,"qty":20,"name":"b"}"#
        ]
    );
    let plan = catalog
        .plan_scan(&table_ref, None, None)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(plan.snapshot, 1);

    let branch = name("db.t$branch_dev");
    let refused = insert_attempt(&catalog, &branch, csv).await.unwrap_err();
    assert!(refused.contains("branch 'dev'"), "{refused}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn an_iceberg_table_of_a_warehouse_takes_a_csv_insert() {
    let dir = temp_dir("lakescope-cli-api", "iceberg");
    let mut session = local_session(1_700_000_000_000, 7);
    let warehouse = dir.display();
    sql(
        &mut session,
        &format!(
            "CREATE CATALOG i WITH ('type' = 'iceberg', 'catalog-type' = 'hadoop', 'warehouse' = '{warehouse}')"
        ),
    )
    .await;
    for statement in [
        "USE CATALOG i",
        "CREATE DATABASE d",
        "USE d",
        "CREATE TABLE t (id INT, v STRING)",
    ] {
        sql(&mut session, statement).await;
    }
    // the namespace's marker and the table's metadata, located under the warehouse's URI
    assert!(dir.join("d/.namespace").is_file());
    let catalog = Catalog::new(Rc::new(LocalStore::new(&dir)) as Rc<dyn ObjectStore>);
    let table_ref = name("d.t");
    let created = catalog.open_iceberg(&table_ref).await.unwrap().unwrap();
    assert_eq!(
        created.metadata().location,
        format!("file://{warehouse}/d/t")
    );
    let inserted = insert_csv(&catalog, &table_ref, "id,v\n1,x\n2,y\n").await;
    assert_eq!(inserted.rows, 2);
    let table = catalog.open_iceberg(&table_ref).await.unwrap().unwrap();
    assert_eq!(inserted.snapshot, table.metadata().current_snapshot_id);
    assert!(inserted.snapshot.is_some());
    assert_eq!(
        lines(&catalog, &table_ref).await,
        [r#"{"id":1,"v":"x"}"#, r#"{"id":2,"v":"y"}"#]
    );
    let _ = std::fs::remove_dir_all(&dir);
}

async fn insert_attempt(
    catalog: &Catalog,
    table_ref: &TableRef,
    csv: &str,
) -> Result<lakescope_engine::upload::Inserted, String> {
    let name = table_ref.to_string();
    let upload = Upload {
        file: "rows.csv",
        kind: FileKind::Csv,
        table_name: &name,
        chunk_rows: 2,
    };
    let source = InMemory(Bytes::from(csv.to_string()));
    let mut reported = 0;
    let inserted = catalog
        .insert_file(
            table_ref,
            &SystemEnv::default(),
            &upload,
            &source,
            &mut |p| reported = p.rows_written,
        )
        .await
        .map_err(|e| e.to_string())?;
    assert_eq!(reported, inserted.rows, "progress saw every row");
    Ok(inserted)
}

async fn insert_csv(
    catalog: &Catalog,
    table_ref: &TableRef,
    csv: &str,
) -> lakescope_engine::upload::Inserted {
    insert_attempt(catalog, table_ref, csv).await.unwrap()
}
