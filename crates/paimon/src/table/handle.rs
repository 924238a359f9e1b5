//! The table handle: opening a table or one of its branches, its schemas, and the bounded cache
//! of decoded manifests.

use super::layout::{branch_path, BRANCH_PREFIX, MAIN_BRANCH};
use super::manifest_cache::{DecodedSize, ManifestCache, MANIFEST_CACHE_BYTES};
use super::probe::{first_branch_schema, load_schema, schema_ids, schema_ids_from};
use super::tag_source::TagSource;
use crate::commit::{RenamingSnapshotCommit, SnapshotCommit};
use crate::error::{Error, Result};
use crate::spec::manifest::{
    decode_index_manifest, decode_manifest, decode_manifest_list, decode_manifest_where,
    IndexManifestEntry, ManifestEntry, ManifestFileMeta,
};
use crate::spec::options::CoreOptions;
use crate::spec::schema::TableSchema;
use lakescope_storage::{join, ObjectStore};
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

/// A data manifest as [`Table::manifest_or_bytes`] finds it.
pub enum ManifestSource {
    /// Its entries, decoded earlier and cached.
    Decoded(Rc<Vec<ManifestEntry>>),
    /// The file's bytes, to decode (e.g. with [`Table::decode_manifest_kept`]).
    Encoded(bytes::Bytes),
}

/// A handle on one Paimon table, on its main branch or another branch.
pub struct Table {
    pub(super) store: Rc<dyn ObjectStore>,
    pub(super) path: String,
    /// `None`: `main`.
    pub(super) branch: Option<String>,
    /// Where `schema/`, `snapshot/` and `tag/` are: the table, or its branch folder.
    pub(super) meta: String,
    /// The first schema id to probe where the store cannot list (a branch's may be above 0).
    first_schema: i64,
    pub(super) schema: Rc<TableSchema>,
    schemas: RefCell<HashMap<i64, Rc<TableSchema>>>,
    manifest_lists: ManifestCache<ManifestFileMeta>,
    manifests: ManifestCache<ManifestEntry>,
    index_manifests: ManifestCache<IndexManifestEntry>,
    /// How commits create snapshots (`None`: [`RenamingSnapshotCommit`], on the store).
    snapshot_commit: Option<Rc<dyn SnapshotCommit>>,
    /// The catalog that keeps `main`'s tags (`None`: only the `tag/` folder).
    pub(super) tag_source: Option<Rc<dyn TagSource>>,
}

impl std::fmt::Debug for Table {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Table")
            .field("store", &self.store.describe())
            .field("path", &self.path)
            .field("branch", &self.branch_name())
            .field("schema_id", &self.schema.id)
            .finish()
    }
}

impl Table {
    /// Opens the table at `path` (a key relative to the store root): loads its latest schema.
    ///
    /// Errors with [`Error::NotFound`] when `schema/` holds no schema file.
    pub async fn open(store: Rc<dyn ObjectStore>, path: impl Into<String>) -> Result<Table> {
        let path = path.into().trim_matches('/').to_string();
        let ids = schema_ids(store.as_ref(), &path).await?;
        let Some(&latest) = ids.last() else {
            return Err(Error::table_not_found(&path));
        };
        let schema = Rc::new(load_schema(store.as_ref(), &path, latest).await?);
        let mut schemas = HashMap::new();
        schemas.insert(latest, schema.clone());
        Ok(Table {
            store,
            meta: path.clone(),
            path,
            branch: None,
            first_schema: 0,
            schema,
            schemas: RefCell::new(schemas),
            manifest_lists: ManifestCache::new(MANIFEST_CACHE_BYTES),
            manifests: ManifestCache::new(MANIFEST_CACHE_BYTES),
            index_manifests: ManifestCache::new(MANIFEST_CACHE_BYTES),
            snapshot_commit: None,
            tag_source: None,
        })
    }

    /// Opens branch `branch` of the table at `path` (`main`: the table itself, as
    /// [`Table::open`]): its latest schema, snapshots and tags come from
    /// `<path>/branch/branch-<branch>/`, files from the table. A branch without a schema file
    /// does not exist: [`Error::NotFound`] naming the table, the branch and the branches there are.
    pub async fn open_branch(
        store: Rc<dyn ObjectStore>,
        path: impl Into<String>,
        branch: &str,
    ) -> Result<Table> {
        let path = path.into().trim_matches('/').to_string();
        if branch == MAIN_BRANCH {
            return Self::open(store, path).await;
        }
        let meta = branch_path(&path, branch)?;
        let first_schema = first_branch_schema(store.as_ref(), &path, &meta).await?;
        let ids = schema_ids_from(store.as_ref(), &meta, first_schema).await?;
        let Some(&latest) = ids.last() else {
            // the table itself missing is the better message
            let main = Self::open(store.clone(), path.clone()).await?;
            let branches = main.branches().await.unwrap_or_default();
            return Err(Error::NotFound {
                what: format!("branch '{branch}' of Paimon table {path}"),
                context: Some(format!(
                    "no schema file under {}; branches: {}",
                    join(&meta, "schema"),
                    if branches.is_empty() {
                        "none but main".to_string()
                    } else {
                        branches.join(", ")
                    }
                )),
            });
        };
        let schema = Rc::new(load_schema(store.as_ref(), &meta, latest).await?);
        let mut schemas = HashMap::new();
        schemas.insert(latest, schema.clone());
        Ok(Table {
            store,
            path,
            branch: Some(branch.to_string()),
            meta,
            first_schema,
            schema,
            schemas: RefCell::new(schemas),
            manifest_lists: ManifestCache::new(MANIFEST_CACHE_BYTES),
            manifests: ManifestCache::new(MANIFEST_CACHE_BYTES),
            index_manifests: ManifestCache::new(MANIFEST_CACHE_BYTES),
            snapshot_commit: None,
            tag_source: None,
        })
    }

    /// This handle with commits creating snapshots through `commit` (a REST catalog's table:
    /// the catalog's commit endpoint) instead of on the store.
    pub fn with_snapshot_commit(mut self, commit: Rc<dyn SnapshotCommit>) -> Self {
        self.snapshot_commit = Some(commit);
        self
    }

    /// This handle with `main`'s tags read from `source` (a REST catalog's tags endpoints)
    /// before the table's `tag/` folder.
    pub fn with_tag_source(mut self, source: Rc<dyn TagSource>) -> Self {
        self.tag_source = Some(source);
        self
    }

    /// How commits to this table create snapshots.
    pub fn snapshot_commit(&self) -> Rc<dyn SnapshotCommit> {
        self.snapshot_commit
            .clone()
            .unwrap_or_else(|| Rc::new(RenamingSnapshotCommit))
    }

    /// Branch `branch` of this table (see [`Table::open_branch`]).
    pub async fn branch(&self, branch: &str) -> Result<Table> {
        Self::open_branch(self.store.clone(), self.path.clone(), branch).await
    }

    /// The branch this handle reads: `main` or another.
    pub fn branch_name(&self) -> &str {
        self.branch.as_deref().unwrap_or(MAIN_BRANCH)
    }

    /// Where this branch's `schema/`, `snapshot/` and `tag/` folders are: the table's path on
    /// `main`, `<path>/branch/branch-<name>` on another branch.
    pub fn metadata_path(&self) -> &str {
        &self.meta
    }

    /// `Ok` on `main`; on another branch the refusal of `what` (a write): lakescope commits
    /// only to `main`, and a branch's commit must never land there.
    pub fn ensure_main(&self, what: &str) -> Result<()> {
        match &self.branch {
            None => Ok(()),
            Some(b) => Err(Error::unsupported(
                &self.meta,
                format!(
                    "{what} on branch '{b}' of {}: lakescope writes only to the main branch",
                    self.path
                ),
            )),
        }
    }

    /// The names of the table's branches other than `main`, sorted (the folders
    /// `branch/branch-<name>/`; empty where the store cannot list).
    pub async fn branches(&self) -> Result<Vec<String>> {
        let listing = match self.store.list_dir(&join(&self.path, "branch")).await {
            Ok(l) => l,
            Err(e) if e.is_not_found() => return Ok(Vec::new()),
            Err(lakescope_storage::Error::Unsupported { .. }) => return Ok(Vec::new()),
            Err(e) => return Err(e.into()),
        };
        let mut names: Vec<String> = listing
            .dirs
            .iter()
            .filter_map(|d| d.strip_prefix(BRANCH_PREFIX))
            .filter(|n| !n.is_empty())
            .map(String::from)
            .collect();
        names.sort();
        Ok(names)
    }

    /// Whether a Paimon table is at `path`: it has a schema file (`schema/` listed, or probed
    /// where the store cannot list).
    pub async fn exists_at(store: &dyn ObjectStore, path: &str) -> Result<bool> {
        Ok(!schema_ids(store, path.trim_matches('/')).await?.is_empty())
    }

    /// The store the table reads through.
    pub fn store(&self) -> &Rc<dyn ObjectStore> {
        &self.store
    }

    /// The table's key prefix (e.g. `corpus.db/pk_dedup`).
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The table name (last path component).
    pub fn name(&self) -> &str {
        self.path.rsplit('/').next().unwrap_or(&self.path)
    }

    /// The schema that was latest when the table was opened.
    pub fn current_schema(&self) -> &Rc<TableSchema> {
        &self.schema
    }

    /// Options of the schema that was latest when the table was opened.
    pub fn options(&self) -> CoreOptions {
        self.schema.core_options()
    }

    /// Key of `rel` in the table folder (manifests, index and data files: every branch's).
    pub(super) fn key(&self, rel: &str) -> String {
        join(&self.path, rel)
    }

    /// Key of `rel` in this branch's metadata folder (`schema/`, `snapshot/`, `tag/`).
    pub(super) fn meta_key(&self, rel: &str) -> String {
        join(&self.meta, rel)
    }

    // ---- schemas -------------------------------------------------------------------------

    /// Schema `id` (cached).
    pub async fn schema(&self, id: i64) -> Result<Rc<TableSchema>> {
        if let Some(s) = self.schemas.borrow().get(&id) {
            return Ok(s.clone());
        }
        let s = Rc::new(load_schema(self.store.as_ref(), &self.meta, id).await?);
        self.schemas.borrow_mut().insert(id, s.clone());
        Ok(s)
    }

    /// All schema versions, ascending by id (lists `schema/`, or probes where it cannot list).
    pub async fn schemas(&self) -> Result<Vec<Rc<TableSchema>>> {
        let ids = schema_ids_from(self.store.as_ref(), &self.meta, self.first_schema).await?;
        let mut out = Vec::with_capacity(ids.len());
        for id in ids {
            out.push(self.schema(id).await?);
        }
        Ok(out)
    }

    /// The newest schema now (lists or probes `schema/`; may be newer than [`Table::schema`]).
    pub async fn latest_schema(&self) -> Result<Rc<TableSchema>> {
        let ids = schema_ids_from(self.store.as_ref(), &self.meta, self.first_schema).await?;
        match ids.last() {
            Some(&id) => self.schema(id).await,
            None => Err(Error::NotFound {
                what: "schema".into(),
                context: Some(self.meta_key("schema")),
            }),
        }
    }

    // ---- manifests (cached) --------------------------------------------------------------

    async fn read_manifest_bytes(&self, name: &str) -> Result<bytes::Bytes> {
        let key = self.key(&format!("manifest/{name}"));
        match self.store.get(&key).await {
            Ok(b) => Ok(b),
            Err(e) if e.is_not_found() => Err(Error::NotFound {
                what: format!("manifest file {key}"),
                context: Some("referenced by a snapshot but missing (expired?)".into()),
            }),
            Err(e) => Err(e.into()),
        }
    }

    /// The entries of manifest list `name` (cached).
    pub async fn manifest_list(&self, name: &str) -> Result<Rc<Vec<ManifestFileMeta>>> {
        self.decoded(&self.manifest_lists, name, decode_manifest_list)
            .await
    }

    /// The entries of data/changelog manifest `name` (cached).
    pub async fn manifest(&self, name: &str) -> Result<Rc<Vec<ManifestEntry>>> {
        self.decoded(&self.manifests, name, decode_manifest).await
    }

    /// The entries of index manifest `name` (cached).
    pub async fn index_manifest(&self, name: &str) -> Result<Rc<Vec<IndexManifestEntry>>> {
        self.decoded(&self.index_manifests, name, decode_index_manifest)
            .await
    }

    /// Data manifest `name` for a planner that keeps only some partitions: decoded from the
    /// cache if it holds the file, else its encoded bytes (see [`Table::decode_manifest_kept`]).
    pub async fn manifest_or_bytes(&self, name: &str) -> Result<ManifestSource> {
        match self.manifests.peek(name) {
            Some(entries) => Ok(ManifestSource::Decoded(entries)),
            None => Ok(ManifestSource::Encoded(
                self.readable_manifest(name).await?.1,
            )),
        }
    }

    /// Manifest file `name`'s key and bytes as the Avro decoders read them: a file written with
    /// `manifest.compression` xz or bzip2 rewritten with codec `null`.
    async fn readable_manifest(&self, name: &str) -> Result<(String, bytes::Bytes)> {
        let bytes = self.read_manifest_bytes(name).await?;
        let key = self.key(&format!("manifest/{name}"));
        let bytes = lakescope_format::read::avro_container::readable(&key, bytes).await?;
        Ok((key, bytes))
    }

    /// Decodes `bytes` of data manifest `name`, keeping the entries whose partition (its
    /// `BinaryRow` bytes) `keep` accepts, so memory grows with the entries kept; a manifest of
    /// which every entry is kept is cached as [`Table::manifest`] caches it.
    pub fn decode_manifest_kept(
        &self,
        name: &str,
        bytes: &[u8],
        keep: impl FnMut(&[u8]) -> Result<bool>,
    ) -> Result<Rc<Vec<ManifestEntry>>> {
        let key = self.key(&format!("manifest/{name}"));
        let (entries, kept_all) = decode_manifest_where(&key, bytes, keep)?;
        let entries = Rc::new(entries);
        if kept_all {
            self.manifests.insert(name, entries.clone());
        }
        Ok(entries)
    }

    /// Manifest file `name` from `cache`, or read and decoded with `decode` (given its key).
    async fn decoded<T: DecodedSize>(
        &self,
        cache: &ManifestCache<T>,
        name: &str,
        decode: fn(&str, &[u8]) -> Result<Vec<T>>,
    ) -> Result<Rc<Vec<T>>> {
        cache
            .get_or_read(name, async {
                let (key, bytes) = self.readable_manifest(name).await?;
                decode(&key, &bytes)
            })
            .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::fixtures::{snapshot_json, table_with, unlisted_table, SCHEMA};
    use lakescope_storage::MemoryStore;

    #[tokio::test(flavor = "current_thread")]
    async fn empty_table_and_missing_table() {
        let t = table_with(&[]).await;
        assert_eq!(t.latest_snapshot().await.unwrap(), None);
        assert_eq!(t.earliest_snapshot_id().await.unwrap(), None);
        assert!(t.tags().await.unwrap().is_empty());
        assert!(matches!(t.tag("nope").await, Err(Error::NotFound { .. })));
        let store: Rc<dyn ObjectStore> = Rc::new(MemoryStore::new());
        assert!(matches!(
            Table::open(store, "db.db/none").await,
            Err(Error::NotFound { .. })
        ));
    }

    /// A branch on a store that cannot list: its schema ids start where the branch was made
    /// (Java copies the tag's schema under its own id), so probing starts at one of main's ids;
    /// its snapshots, hints and tags are its own files.
    #[tokio::test(flavor = "current_thread")]
    async fn a_branch_without_listing() {
        let schema =
            |id: i64| SCHEMA.replace(r#""id": 0, "fields""#, &format!(r#""id": {id}, "fields""#));
        let files: Vec<(&str, String)> = vec![
            ("schema/schema-0", schema(0)),
            ("schema/schema-1", schema(1)),
            ("snapshot/snapshot-4", snapshot_json(4, 400)),
            ("snapshot/LATEST", "4".into()),
            ("branch/branch-dev/schema/schema-1", schema(1)),
            ("branch/branch-dev/schema/schema-2", schema(2)),
            (
                "branch/branch-dev/snapshot/snapshot-4",
                snapshot_json(4, 999),
            ),
            (
                "branch/branch-dev/snapshot/snapshot-5",
                snapshot_json(5, 1000),
            ),
            ("branch/branch-dev/snapshot/LATEST", "5".into()),
            ("branch/branch-dev/tag/tag-v1", snapshot_json(4, 999)),
        ];
        let main = unlisted_table(&files).await.unwrap();
        let dev = main.branch("dev").await.unwrap();
        assert_eq!(dev.branch_name(), "dev");
        assert_eq!(dev.metadata_path(), "db.db/t/branch/branch-dev");
        assert_eq!(dev.current_schema().id, 2);
        let ids: Vec<i64> = dev.schemas().await.unwrap().iter().map(|s| s.id).collect();
        assert_eq!(ids, vec![1, 2]);
        assert_eq!(dev.latest_snapshot_id().await.unwrap(), Some(5));
        assert_eq!(dev.snapshot(4).await.unwrap().time_millis, 999);
        assert_eq!(main.snapshot(4).await.unwrap().time_millis, 400);
        assert_eq!(dev.tag("v1").await.unwrap().snapshot.time_millis, 999);
        assert!(main.tag("v1").await.is_err());
        // files are the table's: an index file is not under the branch
        assert_eq!(dev.index_file_path("index-1"), "db.db/t/index/index-1");
        assert!(main.ensure_main("committing").is_ok());
        let e = dev.ensure_main("committing").unwrap_err().to_string();
        assert!(e.contains("committing on branch 'dev' of db.db/t"), "{e}");
        let e = main.branch("nope").await.unwrap_err().to_string();
        assert!(e.contains("branch 'nope' of Paimon table db.db/t"), "{e}");
        assert!(main.branch("../x").await.is_err());
        assert_eq!(main.branch("main").await.unwrap().branch_name(), "main");
    }
}
