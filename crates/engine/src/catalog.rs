//! Browsing a warehouse: its databases (`<name>.db/` folders) and their tables.

use lakescope_storage::{join, ObjectStore};
use std::rc::Rc;

/// A table found in a database folder.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct TableEntry {
    /// Table name.
    pub name: String,
    /// Key of the table folder relative to the warehouse root.
    pub path: String,
}

/// A database with its tables.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct DatabaseEntry {
    /// Database name (folder name without `.db`).
    pub name: String,
    /// Tables, sorted by name.
    pub tables: Vec<TableEntry>,
}

/// A Paimon filesystem catalog over one warehouse.
#[derive(Clone)]
pub struct Catalog {
    store: Rc<dyn ObjectStore>,
}

impl Catalog {
    /// A catalog over the given warehouse store.
    pub fn new(store: Rc<dyn ObjectStore>) -> Self {
        Self { store }
    }

    /// The warehouse store.
    pub fn store(&self) -> &Rc<dyn ObjectStore> {
        &self.store
    }

    /// Database names (folders named `<db>.db`, and Iceberg namespace folders), sorted.
    pub async fn databases(&self) -> lakescope_storage::Result<Vec<String>> {
        let root = self.store.list_dir("").await?;
        let mut dbs: Vec<String> = root
            .dirs
            .iter()
            .filter_map(|d| d.strip_suffix(".db"))
            .map(str::to_string)
            .collect();
        for d in root.dirs.iter().filter(|d| !d.ends_with(".db")) {
            if !crate::iceberg_scan::tables(self.store.as_ref(), d)
                .await?
                .is_empty()
            {
                dbs.push(d.clone());
            }
        }
        dbs.sort();
        dbs.dedup();
        Ok(dbs)
    }

    /// Tables of a database: sub-folders that hold a `schema/` folder.
    pub async fn tables(&self, database: &str) -> lakescope_storage::Result<Vec<TableEntry>> {
        let db_path = format!("{database}.db");
        let listing = self.store.list_dir(&db_path).await?;
        let mut tables = Vec::new();
        for name in listing.dirs {
            let path = join(&db_path, &name);
            let inner = self.store.list_dir(&path).await?;
            if inner.dirs.iter().any(|d| d == "schema") {
                tables.push(TableEntry { name, path });
            }
        }
        tables.extend(crate::iceberg_scan::tables(self.store.as_ref(), database).await?);
        tables.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(tables)
    }

    /// Every database with its tables.
    pub async fn tree(&self) -> lakescope_storage::Result<Vec<DatabaseEntry>> {
        let mut out = Vec::new();
        for name in self.databases().await? {
            let tables = self.tables(&name).await?;
            out.push(DatabaseEntry { name, tables });
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bytes_stub::put;
    use lakescope_storage::MemoryStore;

    mod bytes_stub {
        use lakescope_storage::{MemoryStore, ObjectStore};
        pub async fn put(s: &MemoryStore, k: &str) {
            s.put(k, b"{}".to_vec().into()).await.unwrap();
        }
    }

    #[tokio::test]
    async fn lists_databases_and_tables() {
        let mem = MemoryStore::new();
        put(&mem, "a.db/t1/schema/schema-0").await;
        put(&mem, "a.db/t2/schema/schema-0").await;
        put(&mem, "a.db/not_a_table/x").await;
        put(&mem, "b.db/t3/schema/schema-0").await;
        put(&mem, "stray/file").await;
        let cat = Catalog::new(Rc::new(mem));
        let tree = cat.tree().await.unwrap();
        assert_eq!(tree.len(), 2);
        assert_eq!(tree[0].name, "a");
        let names: Vec<_> = tree[0].tables.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, vec!["t1", "t2"]);
        assert_eq!(tree[1].tables[0].path, "b.db/t3");
    }

    #[tokio::test]
    async fn lists_iceberg_namespaces() {
        let mem = MemoryStore::new();
        put(&mem, "a.db/t1/schema/schema-0").await;
        put(&mem, "ns/ice/metadata/00001-x.metadata.json").await;
        put(&mem, "ns/not_a_table/data/x").await;
        put(&mem, "other/file").await;
        let cat = Catalog::new(Rc::new(mem));
        let tree = cat.tree().await.unwrap();
        let names: Vec<_> = tree.iter().map(|d| d.name.as_str()).collect();
        assert_eq!(names, vec!["a", "ns"]);
        assert_eq!(tree[1].tables[0].path, "ns/ice");
    }
}
