//! The Hadoop catalog layout: namespaces as folders, `v<N>.metadata.json` + `version-hint.text`.
//!
//! `<warehouse>/<ns>/<table>/metadata/v<N>.metadata.json` holds version N of a table and
//! `metadata/version-hint.text` the number N (as Java's `HadoopTableOperations` writes them);
//! data files go under `<table>/data/`. Object stores have no empty folders, so a namespace is
//! made visible by a zero-byte marker object `<ns>/.namespace` (S3 lists `<ns>/` as a common
//! prefix, a local store creates the folder). Readers ignore it: it is neither a folder nor a
//! metadata file, and Java's `HadoopCatalog` only looks at folders.

use super::definition::{initial_metadata, IcebergTableDefinition};
use crate::location::{metadata_version, VERSION_HINT};
use crate::spec::TableMetadata;
use crate::table::{MetadataCatalog, Table};
use crate::{is_iceberg_table, Error, Result};
use lakescope_format::write_env::WriteEnv;
use lakescope_storage::{join, ObjectStore, PutOutcome};

/// Name of the marker object that makes an empty namespace visible.
pub const NAMESPACE_MARKER: &str = ".namespace";

/// Name of metadata version `n` in the Hadoop layout.
pub fn metadata_file_name(version: u64) -> String {
    format!("v{version}.metadata.json")
}

/// The highest-numbered metadata file of a table (ignoring `version-hint.text`, which may lag
/// behind a commit): its version and key; `None` if the table has no metadata yet.
pub async fn latest_metadata(
    store: &dyn ObjectStore,
    table_key: &str,
) -> Result<Option<(u64, String)>> {
    let dir = join(table_key, "metadata");
    let listing = match store.list_dir(&dir).await {
        Ok(l) => l,
        Err(lakescope_storage::Error::NotFound { .. }) => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    Ok(listing
        .files
        .iter()
        .filter_map(|f| {
            let name = f.path.rsplit('/').next()?;
            Some((metadata_version(name)?, f.path.clone()))
        })
        .max())
}

/// The Hadoop layout's [`MetadataCatalog`]: the latest version is the highest-numbered
/// `v<N>.metadata.json` (listed: the version hint may lag); a commit creates version N+1
/// put-if-absent, and an existing N+1 is a lost race.
#[derive(Debug, Clone, Copy, Default)]
pub struct HadoopMetadata;

#[async_trait::async_trait(?Send)]
impl MetadataCatalog for HadoopMetadata {
    async fn load(&self, table: &Table) -> Result<Table> {
        let (store, table_key) = (table.store(), table.key());
        let (_, key) = latest_metadata(store.as_ref(), table_key)
            .await?
            .ok_or_else(|| Error::not_found(format!("Iceberg metadata of {table_key}"), None))?;
        let bytes = store.get(&key).await?;
        let metadata = TableMetadata::parse(&key, &bytes)?;
        Ok(Table::from_metadata(
            store.clone(),
            table_key,
            key,
            metadata,
        ))
    }

    async fn commit(&self, base: &Table, next: &TableMetadata) -> Result<Option<Table>> {
        let name = base.metadata_key().rsplit('/').next().unwrap_or_default();
        let version = metadata_version(name).ok_or_else(|| {
            Error::unsupported(
                base.metadata_key(),
                "committing on a metadata file not named v<N>.metadata.json",
            )
        })?;
        let (store, key) = (base.store(), base.key());
        match write_metadata(store.as_ref(), key, version + 1, next).await {
            Ok(written) => Ok(Some(Table::from_metadata(
                store.clone(),
                key,
                written,
                next.clone(),
            ))),
            Err(Error::Conflict { .. }) => Ok(None),
            Err(e) => Err(e),
        }
    }
}

/// Table property naming the codec of metadata files (`none` or `gzip`, as in Java).
pub const METADATA_COMPRESSION: &str = "write.metadata.compression-codec";

/// Whether metadata files of a table with `metadata` are gzip-compressed (Java
/// `TableMetadataParser.Codec`: `none` or `gzip`, any case; others are refused).
fn gzip_metadata(table_key: &str, metadata: &TableMetadata) -> Result<bool> {
    match metadata.properties.get(METADATA_COMPRESSION) {
        None => Ok(false),
        Some(c) if c.eq_ignore_ascii_case("none") => Ok(false),
        Some(c) if c.eq_ignore_ascii_case("gzip") => Ok(true),
        Some(other) => Err(Error::unsupported(
            table_key,
            format!("{METADATA_COMPRESSION} = {other} (only none and gzip)"),
        )),
    }
}

/// Writes metadata version `version` of the table atomically (put-if-absent), then points
/// `version-hint.text` at it (best effort). An existing file of that version (plain or gzip) is
/// a [`Error::Conflict`]; a failed put is [`Error::CommitStateUnknown`]. With `write.metadata.compression-codec = gzip` the file is
/// `v<N>.gz.metadata.json`, gzip-compressed, as Java's HadoopTableOperations names it.
pub async fn write_metadata(
    store: &dyn ObjectStore,
    table_key: &str,
    version: u64,
    metadata: &TableMetadata,
) -> Result<String> {
    let dir = join(table_key, "metadata");
    let plain = join(&dir, &metadata_file_name(version));
    let gz = join(&dir, &format!("v{version}.gz.metadata.json"));
    let gzip = gzip_metadata(table_key, metadata)?;
    let (key, other) = if gzip { (gz, plain) } else { (plain, gz) };
    let json = serde_json::to_vec_pretty(metadata)
        .map_err(|e| Error::Invalid(format!("{key}: serializing table metadata: {e}")))?;
    let bytes = if gzip {
        crate::spec::compression::gzip(&json)
    } else {
        json
    };
    if store.get_opt(&other).await?.is_some() {
        return Err(Error::Conflict {
            table: table_key.to_string(),
            reason: format!("metadata version {version} was committed by another writer ({other})"),
        });
    }
    // Past this point the version may exist even when the store reports an error (a lost
    // answer): the outcome is unknown, and the commit's files must stay.
    let created =
        store
            .put_if_absent(&key, bytes.into())
            .await
            .map_err(|e| Error::CommitStateUnknown {
                table: table_key.to_string(),
                cause: format!("creating {key}: {e}"),
            })?;
    match created {
        PutOutcome::Created => {}
        PutOutcome::AlreadyExists => {
            return Err(Error::Conflict {
                table: table_key.to_string(),
                reason: format!(
                    "metadata version {version} was committed by another writer ({key})"
                ),
            })
        }
    }
    // The hint is only a hint: readers list past a stale one (Java's HadoopTableOperations
    // also goes on when it cannot write it), and the version is committed already.
    let _ = store
        .put(
            &join(&dir, VERSION_HINT),
            version.to_string().into_bytes().into(),
        )
        .await;
    Ok(key)
}

/// Creates a table at `table_key` whose metadata says `location` (the absolute URI of that
/// folder): writes `metadata/v1.metadata.json` and the version hint. Errors if the folder
/// already holds Iceberg metadata.
pub async fn create_table(
    store: &dyn ObjectStore,
    table_key: &str,
    location: &str,
    def: &IcebergTableDefinition,
    env: &dyn WriteEnv,
) -> Result<TableMetadata> {
    let table_key = table_key.trim_matches('/');
    if let Some((_, key)) = latest_metadata(store, table_key).await? {
        return Err(Error::Conflict {
            table: table_key.to_string(),
            reason: format!("table already exists ({key})"),
        });
    }
    let metadata = initial_metadata(table_key, location, def, env.uuid(), env.now_millis())?;
    write_metadata(store, table_key, 1, &metadata).await?;
    Ok(metadata)
}

/// A Hadoop catalog over a warehouse folder of a store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HadoopCatalog {
    /// Key of the warehouse folder in the store (`""`: the store root).
    pub root_key: String,
    /// Absolute URI of the warehouse folder, as written into table metadata
    /// (`s3://bucket/wh/iceberg`, `file:///data/wh/iceberg`).
    pub root_uri: String,
}

impl HadoopCatalog {
    /// A catalog whose warehouse is the folder `root_key` of the store, known as `root_uri`.
    pub fn new(root_key: &str, root_uri: &str) -> Self {
        Self {
            root_key: root_key.trim_matches('/').to_string(),
            root_uri: root_uri.trim_end_matches('/').to_string(),
        }
    }

    /// The folder of a namespace (`a.b` → `a/b`).
    fn namespace_path(namespace: &str) -> Result<String> {
        let levels: Vec<&str> = namespace.split('.').collect();
        if levels.iter().any(|l| l.is_empty() || l.contains('/')) {
            return Err(Error::Invalid(format!(
                "invalid namespace name '{namespace}'"
            )));
        }
        Ok(levels.join("/"))
    }

    /// Store key of a namespace folder.
    pub fn namespace_key(&self, namespace: &str) -> Result<String> {
        Ok(join(&self.root_key, &Self::namespace_path(namespace)?))
    }

    /// Store key of a table folder.
    pub fn table_key(&self, namespace: &str, table: &str) -> Result<String> {
        if table.is_empty() || table.contains('/') {
            return Err(Error::Invalid(format!("invalid table name '{table}'")));
        }
        Ok(join(&self.namespace_key(namespace)?, table))
    }

    /// The location written into a table's metadata.
    pub fn table_location(&self, namespace: &str, table: &str) -> Result<String> {
        Ok(format!(
            "{}/{}/{table}",
            self.root_uri,
            Self::namespace_path(namespace)?
        ))
    }

    /// Whether the namespace exists: its marker, or anything at all, is in its folder.
    pub async fn namespace_exists(&self, store: &dyn ObjectStore, namespace: &str) -> Result<bool> {
        let key = self.namespace_key(namespace)?;
        match store.list_dir(&key).await {
            Ok(l) => Ok(!l.dirs.is_empty() || !l.files.is_empty()),
            Err(lakescope_storage::Error::NotFound { .. }) => Ok(false),
            Err(e) => Err(e.into()),
        }
    }

    /// Creates a namespace by writing its marker; `false` if it already existed.
    pub async fn create_namespace(&self, store: &dyn ObjectStore, namespace: &str) -> Result<bool> {
        if self.namespace_exists(store, namespace).await? {
            return Ok(false);
        }
        let marker = join(&self.namespace_key(namespace)?, NAMESPACE_MARKER);
        Ok(store.put_if_absent(&marker, Vec::new().into()).await? == PutOutcome::Created)
    }

    /// Top-level namespaces: folders of the warehouse with a marker or an Iceberg table, sorted.
    pub async fn list_namespaces(&self, store: &dyn ObjectStore) -> Result<Vec<String>> {
        let mut out = Vec::new();
        for dir in store.list_dir(&self.root_key).await?.dirs {
            let key = join(&self.root_key, &dir);
            let listing = store.list_dir(&key).await?;
            let marked = listing
                .files
                .iter()
                .any(|f| f.path.rsplit('/').next() == Some(NAMESPACE_MARKER));
            let mut has_table = false;
            for t in &listing.dirs {
                if is_iceberg_table(store, &join(&key, t)).await {
                    has_table = true;
                    break;
                }
            }
            if (marked || has_table) && !is_iceberg_table(store, &key).await {
                out.push(dir);
            }
        }
        out.sort();
        Ok(out)
    }

    /// Creates a table in an existing namespace (see [`create_table`]).
    pub async fn create_table(
        &self,
        store: &dyn ObjectStore,
        namespace: &str,
        table: &str,
        def: &IcebergTableDefinition,
        env: &dyn WriteEnv,
    ) -> Result<TableMetadata> {
        if !self.namespace_exists(store, namespace).await? {
            return Err(Error::not_found(
                format!("namespace {namespace}"),
                Some(format!("creating table {namespace}.{table}")),
            ));
        }
        let key = self.table_key(namespace, table)?;
        let location = self.table_location(namespace, table)?;
        create_table(store, &key, &location, def, env).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::Table;
    use lakescope_format::spec::{DataType, TypeKind};
    use lakescope_format::write_env::FixedEnv;
    use lakescope_storage::MemoryStore;
    use std::rc::Rc;

    #[tokio::test]
    async fn namespaces_and_tables() {
        let store = Rc::new(MemoryStore::new());
        let env = FixedEnv::new(1_000, 1);
        let cat = HadoopCatalog::new("wh/iceberg", "s3://b/wh/iceberg/");
        let def = IcebergTableDefinition {
            columns: vec![("a".into(), DataType::nullable(TypeKind::BigInt), None)],
            ..Default::default()
        };
        let err = cat
            .create_table(store.as_ref(), "db", "t", &def, &env)
            .await
            .unwrap_err();
        assert!(err.to_string().contains("namespace db not found"), "{err}");
        assert!(cat.create_namespace(store.as_ref(), "db").await.unwrap());
        assert!(!cat.create_namespace(store.as_ref(), "db").await.unwrap());
        assert_eq!(
            cat.list_namespaces(store.as_ref()).await.unwrap(),
            vec!["db"]
        );
        let m = cat
            .create_table(store.as_ref(), "db", "t", &def, &env)
            .await
            .unwrap();
        assert_eq!(m.location, "s3://b/wh/iceberg/db/t");
        let hint = store
            .get("wh/iceberg/db/t/metadata/version-hint.text")
            .await
            .unwrap();
        assert_eq!(&hint[..], b"1");
        let table = Table::open(store.clone(), "wh/iceberg/db/t").await.unwrap();
        assert_eq!(
            table.metadata_key(),
            "wh/iceberg/db/t/metadata/v1.metadata.json"
        );
        assert!(crate::is_iceberg_table(store.as_ref(), "wh/iceberg/db/t").await);
        let again = cat
            .create_table(store.as_ref(), "db", "t", &def, &env)
            .await
            .unwrap_err();
        assert!(matches!(again, Error::Conflict { .. }), "{again}");
        assert!(cat.table_key("db", "a/b").is_err());
        assert!(cat.namespace_key("a..b").is_err());
        assert_eq!(cat.table_key("a.b", "t").unwrap(), "wh/iceberg/a/b/t");
    }
}
