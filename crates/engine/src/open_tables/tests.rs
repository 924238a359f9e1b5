//! [`OpenTables`] over more tables than it keeps: each per-table map stays within its bound,
//! and what it forgot is asked for again and still right.

use super::*;
use crate::catalog::TableEntry;
use crate::catalog_backend::CatalogBackend;
use crate::warehouse_catalog::WarehouseCatalog;
use arrow_array::{ArrayRef, Int32Array, RecordBatch};
use lakescope_paimon::spec::types::DataType;
use lakescope_paimon::write::schema::TableDefinition;
use lakescope_paimon::write::{FixedEnv, WriteEnv};
use lakescope_storage::{MemoryStore, ObjectStore};
use std::cell::Cell;
use std::time::{Duration, SystemTime};

/// A catalog service over the Paimon folders of a warehouse: its tables (`db/t`) are found by
/// name, and it counts the lookups.
struct NamedTables {
    warehouse: WarehouseCatalog,
    lookups: Cell<usize>,
}

#[async_trait::async_trait(?Send)]
impl CatalogBackend for NamedTables {
    fn kind(&self) -> &'static str {
        "a test catalog service"
    }

    async fn databases(&self) -> Result<Vec<String>> {
        self.warehouse.databases().await
    }

    async fn tables(&self, database: &str) -> Result<Vec<TableEntry>> {
        self.warehouse.tables(database).await
    }

    async fn format(&self, _: &str) -> Format {
        Format::Paimon
    }

    async fn locate(&self, table_ref: &TableRef) -> Result<TableLocation> {
        self.lookups.set(self.lookups.get() + 1);
        self.warehouse.locate(table_ref).await
    }

    async fn open_iceberg(&self, _: &TableRef) -> Result<Option<IcebergTable>> {
        Ok(None)
    }

    async fn create_table(
        &self,
        database: &str,
        name: &str,
        def: &TableDefinition,
        env: &dyn WriteEnv,
    ) -> Result<()> {
        self.warehouse.create_table(database, name, def, env).await
    }
}

/// Rows of table `i`: `i % 4 + 1` ids, so that tables differ.
fn rows_of(i: usize) -> RecordBatch {
    let ids: Vec<i32> = (0..=(i % 4) as i32).collect();
    RecordBatch::try_from_iter([("id", Arc::new(Int32Array::from(ids)) as ArrayRef)]).unwrap()
}

#[tokio::test]
async fn per_table_entries_stay_within_their_bound_and_forgotten_ones_are_asked_again() {
    let store: Rc<dyn ObjectStore> = Rc::new(MemoryStore::new());
    let service = Rc::new(NamedTables {
        warehouse: WarehouseCatalog::new(store),
        lookups: Cell::new(0),
    });
    let catalog = Catalog::with_backend(service.clone());
    let now = 1_790_000_000_000;
    let env = FixedEnv::new(now, 7);
    let def = TableDefinition {
        columns: vec![("id".into(), DataType::parse("INT").unwrap(), None)],
        ..Default::default()
    };
    let count = TABLE_ENTRIES + 3;
    for i in 0..count {
        let table = catalog
            .create_table_with(&env, "ls", &format!("t{i}"), &def)
            .await
            .unwrap();
        catalog
            .insert_with(&env, &table, &[rows_of(i)], None)
            .await
            .unwrap();
    }
    let written = service.lookups.get();
    let lookups = || service.lookups.get() - written;
    let clock: Clock = Rc::new(move || SystemTime::UNIX_EPOCH + Duration::from_millis(now as u64));
    let tables = OpenTables::new(catalog, clock);
    let paths: Vec<String> = (0..count).map(|i| format!("ls/t{i}")).collect();
    let records = |i: usize| Some((i % 4 + 1) as i64);

    for (i, path) in paths.iter().enumerate() {
        assert_eq!(tables.format(path).await, Format::Paimon);
        let latest = tables.latest_snapshot(path).await.unwrap().unwrap();
        assert_eq!((latest.id, latest.total_record_count), (1, records(i)));
        tables.paimon(path).await.unwrap();
    }
    let inner = &tables.inner;
    let kept = || {
        (
            inner.formats.borrow().len(),
            inner.locations.borrow().len(),
            inner.latest.borrow().len(),
            inner.known_latest.borrow().len(),
            inner.tables.borrow().len(),
        )
    };
    let bounds = (
        TABLE_ENTRIES,
        TABLE_ENTRIES,
        TABLE_ENTRIES,
        TABLE_ENTRIES,
        TABLE_HANDLES,
    );
    assert_eq!(kept(), bounds);
    assert_eq!(lookups(), count, "one lookup per table");

    // The last table is still kept: its latest read is shared, its location known.
    let last = count - 1;
    let latest = tables.latest_snapshot(&paths[last]).await.unwrap().unwrap();
    assert_eq!(latest.total_record_count, records(last));
    assert_eq!(lookups(), count);

    // The first was forgotten: it is looked up and read again, and its answers are its own.
    let latest = tables.latest_snapshot(&paths[0]).await.unwrap().unwrap();
    assert_eq!((latest.id, latest.total_record_count), (1, records(0)));
    assert_eq!(lookups(), count + 1);
    let table = tables.paimon(&paths[0]).await.unwrap();
    let snapshot = table.latest_snapshot().await.unwrap().unwrap();
    assert_eq!(snapshot.total_record_count, records(0));
    assert_eq!(tables.format(&paths[0]).await, Format::Paimon);
    assert_eq!(kept(), bounds);
}
