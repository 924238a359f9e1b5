//! A Paimon table handle: schemas, snapshots, tags and time travel.
//!
//! Paths are object-store keys relative to the store root (the warehouse), e.g.
//! `corpus.db/pk_dedup/snapshot/snapshot-3`. Schemas and manifests are immutable once written,
//! so the handle caches them; snapshot hints (`LATEST`, `EARLIEST`) are re-read every time.
//! A store that cannot list (a static web host without an index) still opens a table by name:
//! schemas are found by probing `schema-0`, `schema-1`, … and snapshots from the hints, probing
//! `snapshot-(N+1)` as Java does; tags can then only be read by name.
//!
//! # Branches
//! A branch other than `main` keeps its own `schema/`, `snapshot/` and `tag/` folders in
//! `<table>/branch/branch-<name>/` (Java's `BranchManager.branchPath`), while manifests, index
//! files and data files stay in the table's own `manifest/`, `index/` and bucket folders
//! (`FileStorePathFactory` is rooted at the table whatever the branch). A handle opened on a
//! branch ([`Table::open_branch`]) reads that branch's metadata and the table's files; it is
//! read-only ([`Table::ensure_main`]): lakescope commits only to `main`.

use crate::error::{Error, Result};
use crate::spec::binary_row::Datum;
use crate::spec::manifest::{
    decode_index_manifest, decode_manifest, decode_manifest_list, DataFileMeta, IndexManifestEntry,
    ManifestEntry, ManifestFileMeta,
};
use crate::spec::options::CoreOptions;
use crate::spec::schema::TableSchema;
use crate::spec::snapshot::{Snapshot, Tag};
use lakescope_storage::{join, ObjectStore};
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

/// Bucket number of the postpone bucket mode (`bucket = -2`).
pub const POSTPONE_BUCKET: i32 = -2;

/// The branch every table has, kept in the table folder itself.
pub const MAIN_BRANCH: &str = "main";

/// A handle on one Paimon table, on its main branch or another branch.
pub struct Table {
    store: Rc<dyn ObjectStore>,
    path: String,
    /// `None`: `main`.
    branch: Option<String>,
    /// Where `schema/`, `snapshot/` and `tag/` are: the table, or its branch folder.
    meta: String,
    /// The first schema id to probe where the store cannot list (a branch's may be above 0).
    first_schema: i64,
    schema: Rc<TableSchema>,
    schemas: RefCell<HashMap<i64, Rc<TableSchema>>>,
    manifest_lists: Decoded<ManifestFileMeta>,
    manifests: Decoded<ManifestEntry>,
    index_manifests: Decoded<IndexManifestEntry>,
}

/// Manifest files decoded by name; concurrent reads of one file share one read and decoding
/// (a failed one is tried again by the next reader).
type Decoded<T> = RefCell<HashMap<String, Rc<async_once_cell::OnceCell<Rc<Vec<T>>>>>>;

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

/// Parses the id out of `<prefix><id>` (e.g. `snapshot-12`).
fn id_from_name(name: &str, prefix: &str) -> Option<i64> {
    name.strip_prefix(prefix)?
        .parse()
        .ok()
        .filter(|id: &i64| *id >= 0)
}

/// Hive-style escaping of a partition path component, as Paimon's `PartitionPathUtils`.
pub fn escape_path_name(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        let escape = matches!(
            c,
            '\u{01}'
                ..='\u{1F}'
                    | '"'
                    | '#'
                    | '%'
                    | '\''
                    | '*'
                    | '/'
                    | ':'
                    | '='
                    | '?'
                    | '\\'
                    | '\u{7F}'
                    | '{'
                    | '['
                    | ']'
                    | '^'
        );
        if escape {
            out.push_str(&format!("%{:02X}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

/// Turns an absolute external location into a store key: strips `scheme:`, then `//authority`
/// if present, then leading `/`. `s3://bucket/a/f.parquet` → `a/f.parquet`,
/// `file:/data/f.parquet` → `data/f.parquet`; a path without scheme only loses leading `/`.
/// This is right when the store is rooted at the bucket / filesystem root; callers with a store
/// rooted elsewhere must map external paths themselves.
pub fn strip_scheme(location: &str) -> String {
    let rest = match location.split_once(':') {
        Some((scheme, rest))
            if !scheme.is_empty()
                && !scheme.contains('/')
                && scheme
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')) =>
        {
            match rest.strip_prefix("//") {
                Some(auth_and_path) => auth_and_path.split_once('/').map(|(_, p)| p).unwrap_or(""),
                None => rest,
            }
        }
        _ => location,
    };
    rest.trim_start_matches('/').to_string()
}

impl Table {
    /// Opens the table at `path` (a key relative to the store root): loads its latest schema.
    ///
    /// Errors with [`Error::NotFound`] when `schema/` holds no schema file.
    pub async fn open(store: Rc<dyn ObjectStore>, path: impl Into<String>) -> Result<Table> {
        let path = path.into().trim_matches('/').to_string();
        let ids = schema_ids(store.as_ref(), &path).await?;
        let Some(&latest) = ids.last() else {
            return Err(Error::NotFound {
                what: format!("Paimon table {path}"),
                context: Some(format!("no schema file under {}", join(&path, "schema"))),
            });
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
            manifest_lists: RefCell::default(),
            manifests: RefCell::default(),
            index_manifests: RefCell::default(),
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
            manifest_lists: RefCell::default(),
            manifests: RefCell::default(),
            index_manifests: RefCell::default(),
        })
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
    fn key(&self, rel: &str) -> String {
        join(&self.path, rel)
    }

    /// Key of `rel` in this branch's metadata folder (`schema/`, `snapshot/`, `tag/`).
    fn meta_key(&self, rel: &str) -> String {
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

    // ---- snapshots -----------------------------------------------------------------------

    /// The table's snapshot files and hints.
    pub fn snapshot_files(&self) -> Snapshots<'_> {
        Snapshots::new(self.store.as_ref(), &self.meta)
    }

    /// Snapshot `id`; [`Error::NotFound`] if it does not exist, saying so when it expired
    /// (older than the earliest snapshot).
    pub async fn snapshot(&self, id: i64) -> Result<Snapshot> {
        self.snapshot_files().snapshot(id).await
    }

    /// Ids of all snapshot files, ascending (see [`Snapshots::ids`]).
    pub async fn snapshot_ids(&self) -> Result<Vec<i64>> {
        self.snapshot_files().ids().await
    }

    /// Id of the latest snapshot, or `None` for a table without snapshots (see
    /// [`Snapshots::latest_id`]).
    pub async fn latest_snapshot_id(&self) -> Result<Option<i64>> {
        self.snapshot_files().latest_id().await
    }

    /// The latest snapshot (see [`Snapshots::latest`]).
    pub async fn latest_snapshot(&self) -> Result<Option<Snapshot>> {
        self.snapshot_files().latest().await
    }

    /// Id of the earliest existing snapshot, or `None` for a table without snapshots (see
    /// [`Snapshots::earliest_id`]).
    pub async fn earliest_snapshot_id(&self) -> Result<Option<i64>> {
        self.snapshot_files().earliest_id().await
    }

    /// All existing snapshots, ascending by id (lists `snapshot/`, reads them concurrently).
    pub async fn snapshots(&self) -> Result<Vec<Snapshot>> {
        self.snapshot_files().all().await
    }

    /// Paimon's `scan.timestamp-millis`: the latest snapshot with `timeMillis <= ms`, or `None`
    /// when every snapshot is newer (or there are none).
    pub async fn snapshot_at_or_before_timestamp(&self, ms: i64) -> Result<Option<Snapshot>> {
        self.snapshot_files().at_or_before_timestamp(ms).await
    }

    // ---- tags ----------------------------------------------------------------------------

    /// All tags, sorted by name (lists `tag/`). Empty where the store cannot list: tags are then
    /// only read by name ([`Table::tag`]).
    pub async fn tags(&self) -> Result<Vec<(String, Tag)>> {
        let listing = match self.store.list_dir(&self.meta_key("tag")).await {
            Ok(listing) => listing,
            Err(lakescope_storage::Error::Unsupported { .. }) => return Ok(Vec::new()),
            Err(e) => return Err(e.into()),
        };
        let mut names: Vec<String> = listing
            .files
            .iter()
            .filter_map(|f| f.path.rsplit('/').next())
            .filter_map(|n| n.strip_prefix("tag-"))
            .map(String::from)
            .collect();
        names.sort();
        let tags = futures::future::try_join_all(names.iter().map(|n| self.tag(n))).await?;
        Ok(names.into_iter().zip(tags).collect())
    }

    /// Tag `name` (`tag/tag-<name>`); [`Error::NotFound`] if absent.
    pub async fn tag(&self, name: &str) -> Result<Tag> {
        let key = self.meta_key(&format!("tag/tag-{name}"));
        let bytes = self
            .store
            .get_opt(&key)
            .await?
            .ok_or_else(|| Error::NotFound {
                what: format!("tag '{name}'"),
                context: Some(match &self.branch {
                    None => self.path.clone(),
                    Some(b) => format!("{} (branch '{b}')", self.path),
                }),
            })?;
        Tag::from_json(&bytes).map_err(|e| Error::corrupt(key, format!("invalid tag JSON: {e}")))
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

    /// Manifest file `name` from `cache`, or read and decoded with `decode` (given its key).
    async fn decoded<T>(
        &self,
        cache: &Decoded<T>,
        name: &str,
        decode: fn(&str, &[u8]) -> Result<Vec<T>>,
    ) -> Result<Rc<Vec<T>>> {
        let cell = cache
            .borrow_mut()
            .entry(name.to_string())
            .or_default()
            .clone();
        let read = async {
            let bytes = self.read_manifest_bytes(name).await?;
            decode(&self.key(&format!("manifest/{name}")), &bytes).map(Rc::new)
        };
        cell.get_or_try_init(read).await.cloned()
    }

    // ---- file paths ----------------------------------------------------------------------

    /// The partition directory part `k1=v1/k2=v2` for these partition values (in partition-key
    /// order), rendered as Paimon does: `partition.legacy-name` decides the rendering (see
    /// [`Datum::to_partition_string`]), NULL, empty and whitespace-only values become
    /// `partition.default-name`, and names and values are Hive-escaped.
    pub fn partition_path(&self, partition_values: &[Datum]) -> Result<String> {
        let options = self.options();
        let legacy = options.partition_legacy_name()?;
        let default_name = options.partition_default_name();
        let fields = self.schema.partition_fields();
        if fields.len() != partition_values.len() {
            return Err(Error::Invalid(format!(
                "table {} has {} partition keys but {} partition values were given",
                self.path,
                fields.len(),
                partition_values.len()
            )));
        }
        let parts: Vec<String> = fields
            .iter()
            .zip(partition_values)
            .map(|(field, value)| {
                let text = value
                    .to_partition_string(&field.data_type, legacy)
                    .filter(|s| !s.trim().is_empty())
                    .unwrap_or_else(|| default_name.clone());
                format!(
                    "{}={}",
                    escape_path_name(&field.name),
                    escape_path_name(&text)
                )
            })
            .collect();
        Ok(parts.join("/"))
    }

    /// The bucket directory name: `bucket-<b>`, or `bucket-postpone` for bucket -2.
    pub fn bucket_dir(bucket: i32) -> String {
        if bucket == POSTPONE_BUCKET {
            "bucket-postpone".into()
        } else {
            format!("bucket-{bucket}")
        }
    }

    /// Store key of a data (or changelog) file: `<table>[/<data-file.path-directory>]/<k1>=<v1>/…/bucket-<b>/<file_name>`.
    ///
    /// `partition_values` must come from the manifest entry's `_PARTITION` BinaryRow (never parse
    /// them from a path). When the file has an `external_path`, that location with its scheme
    /// and authority stripped is returned instead (see [`strip_scheme`]).
    pub fn data_file_path(
        &self,
        partition_values: &[Datum],
        bucket: i32,
        file: &DataFileMeta,
    ) -> Result<String> {
        if let Some(external) = file.external_path.as_deref().filter(|p| !p.is_empty()) {
            return Ok(strip_scheme(external));
        }
        let mut dir = self.path.clone();
        if let Some(sub) = self.options().data_file_path_directory() {
            dir = join(&dir, &sub);
        }
        let partition = self.partition_path(partition_values)?;
        if !partition.is_empty() {
            dir = join(&dir, &partition);
        }
        Ok(join(
            &join(&dir, &Self::bucket_dir(bucket)),
            &file.file_name,
        ))
    }

    /// Store key of an index file: `<table>/index/<name>`.
    pub fn index_file_path(&self, file_name: &str) -> String {
        join(&self.key("index"), file_name)
    }
}

/// A table's snapshot files and hints (`<table>/snapshot/`). They need no schema: the latest
/// snapshot can be read while the table opens.
#[derive(Clone, Copy)]
pub struct Snapshots<'a> {
    store: &'a dyn ObjectStore,
    table: &'a str,
}

impl<'a> Snapshots<'a> {
    /// The snapshots of the table at `table` (its key prefix, as [`Table::path`]).
    pub fn new(store: &'a dyn ObjectStore, table: &'a str) -> Self {
        Snapshots {
            store,
            table: table.trim_matches('/'),
        }
    }

    fn key(&self, rel: &str) -> String {
        join(self.table, rel)
    }

    fn rel(id: i64) -> String {
        format!("snapshot/snapshot-{id}")
    }

    async fn exists(&self, rel: &str) -> Result<bool> {
        exists(self.store, &self.key(rel)).await
    }

    /// Snapshot `id`; [`Error::NotFound`] if it does not exist, saying so when it expired
    /// (older than the earliest snapshot).
    pub async fn snapshot(&self, id: i64) -> Result<Snapshot> {
        if let Some(s) = self.snapshot_opt(id).await? {
            return Ok(s);
        }
        let context = match self.earliest_id().await {
            Ok(Some(earliest)) if id < earliest => format!(
                "{}: expired, the earliest snapshot is {earliest} (snapshot.num-retained.*, snapshot.time-retained)",
                self.table
            ),
            _ => self.table.to_string(),
        };
        Err(Error::NotFound {
            what: format!("snapshot {id}"),
            context: Some(context),
        })
    }

    async fn snapshot_opt(&self, id: i64) -> Result<Option<Snapshot>> {
        let key = self.key(&Self::rel(id));
        match self.store.get_opt(&key).await? {
            None => Ok(None),
            Some(b) => Snapshot::from_json(&b)
                .map(Some)
                .map_err(|e| Error::corrupt(key, format!("invalid snapshot JSON: {e}"))),
        }
    }

    async fn read_hint(&self, name: &str) -> Result<Option<i64>> {
        let Some(b) = self
            .store
            .get_opt(&self.key(&format!("snapshot/{name}")))
            .await?
        else {
            return Ok(None);
        };
        Ok(std::str::from_utf8(&b)
            .ok()
            .and_then(|s| s.trim().parse::<i64>().ok())
            .filter(|id| *id > 0))
    }

    /// Ids of all snapshot files, ascending: lists `snapshot/`, or, where the store cannot
    /// list, every id from the earliest to the latest snapshot (see below). Their number is
    /// Paimon's snapshot count (`SnapshotManager.snapshotCount` counts the listed files).
    pub async fn ids(&self) -> Result<Vec<i64>> {
        if let Some(ids) = self.listed_ids().await? {
            return Ok(ids);
        }
        let Some(earliest) = self.earliest_id().await? else {
            return Ok(Vec::new());
        };
        let latest = self.latest_id().await?.unwrap_or(earliest);
        Ok((earliest..=latest).collect())
    }

    /// The listed snapshot ids, or `None` when the store cannot list.
    async fn listed_ids(&self) -> Result<Option<Vec<i64>>> {
        list_ids(self.store, &self.key("snapshot"), "snapshot-").await
    }

    /// The id a hint file names, if that snapshot exists.
    async fn existing_hint(&self, name: &str) -> Result<Option<i64>> {
        match self.read_hint(name).await? {
            Some(id) if self.exists(&Self::rel(id)).await? => Ok(Some(id)),
            _ => Ok(None),
        }
    }

    /// From the existing snapshot `from`, steps by `step` while the next snapshot exists; the
    /// last existing id.
    async fn follow(&self, from: i64, step: i64) -> Result<i64> {
        walk_ids(self.store, &self.key("snapshot"), "snapshot-", from, step).await
    }

    /// Id of the latest snapshot, or `None` for a table without snapshots.
    ///
    /// The `LATEST` hint is only a hint: when it names an existing snapshot, snapshots after it
    /// are probed (`N+1`, `N+2`, …) until one is missing — `N` and `N+1` are checked together;
    /// when it is missing, unparsable or names a missing snapshot, `snapshot/` is listed, or,
    /// where the store cannot list, the probing starts from the earliest snapshot.
    pub async fn latest_id(&self) -> Result<Option<i64>> {
        if let Some(hint) = self.read_hint("LATEST").await? {
            let (named, next) = futures::future::try_join(
                self.exists(&Self::rel(hint)),
                self.exists(&Self::rel(hint + 1)),
            )
            .await?;
            match (named, next) {
                (true, false) => return Ok(Some(hint)),
                (true, true) => return Ok(Some(self.follow(hint + 1, 1).await?)),
                (false, _) => {}
            }
        }
        if let Some(ids) = self.listed_ids().await? {
            return Ok(ids.last().copied());
        }
        match self.earliest_id().await? {
            Some(earliest) => Ok(Some(self.follow(earliest, 1).await?)),
            None => Ok(None),
        }
    }

    /// The latest snapshot (see [`Snapshots::latest_id`]). Where listing costs no request (a
    /// static host's index), the `LATEST` hint, the newest listed snapshot `N` and the probe of
    /// `N+1` are read together: one round trip when the listing is current. Otherwise the hint,
    /// then snapshot `N` and the probe of `N+1` together: two round trips when the hint is.
    pub async fn latest(&self) -> Result<Option<Snapshot>> {
        let found = match self.newest_listed_for_free().await? {
            Some(newest) => self.latest_from_listing(newest).await?,
            None => self.latest_from_hint().await?,
        };
        if let Some(s) = found {
            return Ok(Some(s));
        }
        // A snapshot can expire between finding and reading it; retry a few times.
        for _ in 0..3 {
            let Some(id) = self.latest_id().await? else {
                return Ok(None);
            };
            if let Some(s) = self.snapshot_opt(id).await? {
                return Ok(Some(s));
            }
        }
        Err(Error::NotFound {
            what: "latest snapshot".into(),
            context: Some(format!(
                "{}: snapshots keep disappearing while read",
                self.table
            )),
        })
    }

    /// The newest listed snapshot id where the store lists without a request; else `None`.
    async fn newest_listed_for_free(&self) -> Result<Option<i64>> {
        if !self.store.lists_without_requests() {
            return Ok(None);
        }
        Ok(self.listed_ids().await?.and_then(|ids| ids.last().copied()))
    }

    /// The latest snapshot from the newest listed one, `newest`, read together with the
    /// `LATEST` hint and the probe of `newest + 1` (the listing may be older than the hint, or
    /// name a snapshot expired since); `None` when neither leads to an existing snapshot.
    async fn latest_from_listing(&self, newest: i64) -> Result<Option<Snapshot>> {
        let (hint, listed, next) = futures::future::try_join3(
            self.read_hint("LATEST"),
            self.snapshot_opt(newest),
            self.snapshot_opt(newest + 1),
        )
        .await?;
        match (hint, listed) {
            // Committed after the listing was made: the hint is further on.
            (Some(hint), _) if hint > newest + 1 => self.latest_from(hint).await,
            (_, Some(listed)) => Ok(Some(self.follow_from(newest, listed, next).await?)),
            (Some(hint), None) => self.latest_from(hint).await,
            (None, None) => Ok(None),
        }
    }

    /// The snapshot the `LATEST` hint leads to (see [`Snapshots::latest_from`]); `None` when the
    /// hint is missing, unparsable or names a missing snapshot (the caller then lists or probes).
    async fn latest_from_hint(&self) -> Result<Option<Snapshot>> {
        match self.read_hint("LATEST").await? {
            Some(hint) => self.latest_from(hint).await,
            None => Ok(None),
        }
    }

    /// Snapshot `id` and `id + 1` read together, then `id + 2`, … while they exist: the last
    /// one; `None` when snapshot `id` is missing.
    async fn latest_from(&self, id: i64) -> Result<Option<Snapshot>> {
        let (named, next) =
            futures::future::try_join(self.snapshot_opt(id), self.snapshot_opt(id + 1)).await?;
        match named {
            Some(named) => Ok(Some(self.follow_from(id, named, next).await?)),
            None => Ok(None),
        }
    }

    /// From snapshot `id` (`found`) and what reading `id + 1` gave (`next`): reads `id + 2`, …
    /// while they exist; the last existing one.
    async fn follow_from(
        &self,
        mut id: i64,
        mut found: Snapshot,
        mut next: Option<Snapshot>,
    ) -> Result<Snapshot> {
        while let Some(s) = next {
            found = s;
            id += 1;
            next = self.snapshot_opt(id + 1).await?;
        }
        Ok(found)
    }

    /// Id of the earliest existing snapshot, or `None` for a table without snapshots.
    ///
    /// The `EARLIEST` hint (absent in pypaimon tables) is trusted only when snapshot `N` exists
    /// and `N-1` does not; otherwise `snapshot/` is listed. Where the store cannot list,
    /// snapshots before an existing one (named by `EARLIEST`, else `LATEST`, else snapshot 1) are
    /// probed (`N-1`, `N-2`, …) until one is missing.
    pub async fn earliest_id(&self) -> Result<Option<i64>> {
        let hint = self.existing_hint("EARLIEST").await?;
        if let Some(hint) = hint {
            if hint == 1 || !self.exists(&Self::rel(hint - 1)).await? {
                return Ok(Some(hint));
            }
        }
        if let Some(ids) = self.listed_ids().await? {
            return Ok(ids.first().copied());
        }
        let anchor = match hint {
            Some(id) => Some(id),
            None => match self.existing_hint("LATEST").await? {
                Some(id) => Some(id),
                None => self.exists(&Self::rel(1)).await?.then_some(1),
            },
        };
        match anchor {
            Some(id) => Ok(Some(self.follow(id, -1).await?)),
            // Hints that lead nowhere: without a listing the snapshots cannot be found.
            None if self.read_hint("LATEST").await?.is_some()
                || self.read_hint("EARLIEST").await?.is_some() =>
            {
                Err(Error::NotFound {
                    what: format!("snapshots of {}", self.table),
                    context: Some(format!(
                        "{} cannot list, and the hints in {} name no existing snapshot",
                        self.store.describe(),
                        self.key("snapshot")
                    )),
                })
            }
            None => Ok(None),
        }
    }

    /// All existing snapshots, ascending by id (lists `snapshot/`, reads them concurrently).
    pub async fn all(&self) -> Result<Vec<Snapshot>> {
        let ids = self.ids().await?;
        let loaded =
            futures::future::try_join_all(ids.iter().map(|id| self.snapshot_opt(*id))).await?;
        // Snapshots expired between listing and reading are skipped.
        Ok(loaded.into_iter().flatten().collect())
    }

    /// Paimon's `scan.timestamp-millis`: the latest snapshot with `timeMillis <= ms`, or `None`
    /// when every snapshot is newer (or there are none). Binary search over the existing ids.
    pub async fn at_or_before_timestamp(&self, ms: i64) -> Result<Option<Snapshot>> {
        let ids = self.ids().await?;
        let (mut lo, mut hi) = (0usize, ids.len());
        let mut best: Option<Snapshot> = None;
        // Invariant: ids[..lo] have time <= ms (best = the last of them), ids[hi..] have time > ms.
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match self.snapshot_opt(ids[mid]).await? {
                Some(s) if s.time_millis <= ms => {
                    best = Some(s);
                    lo = mid + 1;
                }
                Some(_) => hi = mid,
                // Expired while searching: treat as older than everything that remains.
                None => lo = mid + 1,
            }
        }
        Ok(best)
    }
}

/// The folder name prefix of a branch (`branch/branch-<name>`).
pub const BRANCH_PREFIX: &str = "branch-";

/// Where branch `branch` of the table at `table` keeps its metadata (Java's
/// `BranchManager.branchPath`): the table itself for `main`. A name that is empty or would
/// leave the folder (`/`, `..`) is refused.
pub fn branch_path(table: &str, branch: &str) -> Result<String> {
    if branch == MAIN_BRANCH {
        return Ok(table.to_string());
    }
    if branch.trim().is_empty()
        || branch.contains('/')
        || branch.contains('\\')
        || branch == ".."
        || branch == "."
    {
        return Err(Error::Invalid(format!(
            "'{branch}' is not a branch name of {table}"
        )));
    }
    Ok(join(
        &join(table, "branch"),
        &format!("{BRANCH_PREFIX}{branch}"),
    ))
}

/// Whether the object exists.
async fn exists(store: &dyn ObjectStore, key: &str) -> Result<bool> {
    match store.head(key).await {
        Ok(_) => Ok(true),
        Err(e) if e.is_not_found() => Ok(false),
        Err(e) => Err(e.into()),
    }
}

/// Ids of the schema files of the table at `table`, ascending: listed, or, where the store
/// cannot list, probed from `schema-0` up to the first missing one.
async fn schema_ids(store: &dyn ObjectStore, table: &str) -> Result<Vec<i64>> {
    schema_ids_from(store, table, 0).await
}

/// [`schema_ids`] where, unlisted, the first schema file is `schema-<first>` (a branch starts
/// at the id of the schema it was created with).
async fn schema_ids_from(store: &dyn ObjectStore, table: &str, first: i64) -> Result<Vec<i64>> {
    let dir = join(table, "schema");
    if let Some(ids) = list_ids(store, &dir, "schema-").await? {
        return Ok(ids);
    }
    if !exists(store, &join(&dir, &format!("schema-{first}"))).await? {
        return Ok(Vec::new());
    }
    let last = walk_ids(store, &dir, "schema-", first, 1).await?;
    Ok((first..=last).collect())
}

/// The id of a branch's first schema file where the store cannot list: Java copies the schema
/// the branch starts from (the latest, or the tag's) under its own id, so it is one of main's
/// ids; `0` when none is found (or the store lists).
async fn first_branch_schema(store: &dyn ObjectStore, table: &str, meta: &str) -> Result<i64> {
    if list_ids(store, &join(meta, "schema"), "schema-")
        .await?
        .is_some()
    {
        return Ok(0);
    }
    for id in schema_ids(store, table).await? {
        if exists(store, &join(meta, &format!("schema/schema-{id}"))).await? {
            return Ok(id);
        }
    }
    Ok(0)
}

/// From the existing `<dir>/<prefix><from>`, steps the id by `step` (never below 1) while the
/// next file exists; the last existing id.
async fn walk_ids(
    store: &dyn ObjectStore,
    dir: &str,
    prefix: &str,
    from: i64,
    step: i64,
) -> Result<i64> {
    let mut id = from;
    while id + step > 0 && exists(store, &join(dir, &format!("{prefix}{}", id + step))).await? {
        id += step;
    }
    Ok(id)
}

/// Lists `<dir>/` and returns the ids of files named `<prefix><id>`, ascending; `None` when the
/// store cannot list (callers then probe).
async fn list_ids(store: &dyn ObjectStore, dir: &str, prefix: &str) -> Result<Option<Vec<i64>>> {
    let listing = match store.list_dir(dir).await {
        Ok(l) => l,
        Err(e) if e.is_not_found() => return Ok(Some(Vec::new())),
        Err(lakescope_storage::Error::Unsupported { .. }) => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    let mut ids: Vec<i64> = listing
        .files
        .iter()
        .filter_map(|f| f.path.rsplit('/').next())
        .filter_map(|name| id_from_name(name, prefix))
        .collect();
    ids.sort_unstable();
    ids.dedup();
    Ok(Some(ids))
}

async fn load_schema(store: &dyn ObjectStore, table: &str, id: i64) -> Result<TableSchema> {
    let key = join(table, &format!("schema/schema-{id}"));
    let bytes = match store.get(&key).await {
        Ok(b) => b,
        Err(e) if e.is_not_found() => {
            return Err(Error::NotFound {
                what: format!("schema {id}"),
                context: Some(table.to_string()),
            })
        }
        Err(e) => return Err(e.into()),
    };
    let schema =
        TableSchema::from_json(&bytes).map_err(|e| match TableSchema::unknown_type(&bytes) {
            Some((column, ty)) => Error::unsupported(
                &key,
                format!("column '{column}' has type {ty}, which lakescope does not read"),
            ),
            None => Error::corrupt(&key, format!("invalid schema JSON: {e}")),
        })?;
    if schema.id != id {
        return Err(Error::corrupt(
            &key,
            format!("file holds schema id {}", schema.id),
        ));
    }
    Ok(schema)
}

#[cfg(test)]
mod tests {
    use super::*;
    use bytes::Bytes;
    use lakescope_storage::MemoryStore;

    const SCHEMA: &str = r#"{"version": 3, "id": 0, "fields": [
        {"id": 0, "name": "dt", "type": "STRING"}, {"id": 1, "name": "h", "type": "INT"},
        {"id": 2, "name": "v", "type": "BIGINT"}],
        "highestFieldId": 2, "partitionKeys": ["dt", "h"], "primaryKeys": [],
        "options": {"partition.default-name": "NULLP"}, "timeMillis": 1}"#;

    fn snapshot_json(id: i64, time: i64) -> String {
        format!(
            r#"{{"version": 3, "id": {id}, "schemaId": 0, "baseManifestList": "b", "deltaManifestList": "d",
               "commitUser": "u", "commitIdentifier": 1, "commitKind": "APPEND", "timeMillis": {time}}}"#
        )
    }

    async fn table_with(files: &[(&str, String)]) -> Table {
        let store = MemoryStore::new();
        store
            .put("db.db/t/schema/schema-0", Bytes::from(SCHEMA))
            .await
            .unwrap();
        for (k, v) in files {
            store
                .put(&format!("db.db/t/{k}"), Bytes::from(v.clone()))
                .await
                .unwrap();
        }
        Table::open(Rc::new(store), "db.db/t").await.unwrap()
    }

    #[tokio::test(flavor = "current_thread")]
    async fn hints_are_only_hints() {
        let mut files: Vec<(&str, String)> = Vec::new();
        let names = [
            "snapshot/snapshot-3",
            "snapshot/snapshot-4",
            "snapshot/snapshot-5",
        ];
        for (i, n) in names.iter().enumerate() {
            files.push((n, snapshot_json(i as i64 + 3, 100 * (i as i64 + 3))));
        }
        // Stale LATEST, stale EARLIEST (pointing at an expired snapshot).
        files.push(("snapshot/LATEST", "4".into()));
        files.push(("snapshot/EARLIEST", "1".into()));
        let t = table_with(&files).await;
        assert_eq!(t.latest_snapshot_id().await.unwrap(), Some(5));
        assert_eq!(t.latest_snapshot().await.unwrap().unwrap().id, 5);
        assert_eq!(t.earliest_snapshot_id().await.unwrap(), Some(3));
        assert_eq!(t.snapshots().await.unwrap().len(), 3);
        // Garbage LATEST.
        files.retain(|(k, _)| *k != "snapshot/LATEST");
        files.push(("snapshot/LATEST", "garbage\n".into()));
        let t = table_with(&files).await;
        assert_eq!(t.latest_snapshot_id().await.unwrap(), Some(5));
        // LATEST ahead of reality.
        files.retain(|(k, _)| *k != "snapshot/LATEST");
        files.push(("snapshot/LATEST", "99".into()));
        let t = table_with(&files).await;
        assert_eq!(t.latest_snapshot_id().await.unwrap(), Some(5));
        // Time travel.
        assert_eq!(t.snapshot_at_or_before_timestamp(299).await.unwrap(), None);
        assert_eq!(
            t.snapshot_at_or_before_timestamp(300)
                .await
                .unwrap()
                .unwrap()
                .id,
            3
        );
        assert_eq!(
            t.snapshot_at_or_before_timestamp(450)
                .await
                .unwrap()
                .unwrap()
                .id,
            4
        );
        assert_eq!(
            t.snapshot_at_or_before_timestamp(10_000)
                .await
                .unwrap()
                .unwrap()
                .id,
            5
        );
        assert!(matches!(t.snapshot(1).await, Err(Error::NotFound { .. })));
    }

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

    /// A store that cannot list, as a static web host without an index.
    struct Unlisted(MemoryStore);

    #[async_trait::async_trait(?Send)]
    impl ObjectStore for Unlisted {
        fn describe(&self) -> String {
            "unlisted://".into()
        }
        async fn get(&self, path: &str) -> lakescope_storage::Result<Bytes> {
            self.0.get(path).await
        }
        async fn get_range(
            &self,
            path: &str,
            range: std::ops::Range<u64>,
        ) -> lakescope_storage::Result<Bytes> {
            self.0.get_range(path, range).await
        }
        async fn head(
            &self,
            path: &str,
        ) -> lakescope_storage::Result<lakescope_storage::ObjectMeta> {
            self.0.head(path).await
        }
        async fn list_dir(
            &self,
            _prefix: &str,
        ) -> lakescope_storage::Result<lakescope_storage::Listing> {
            Err(lakescope_storage::Error::Unsupported {
                store: self.describe(),
                operation: "listing".into(),
            })
        }
        async fn put(&self, path: &str, data: Bytes) -> lakescope_storage::Result<()> {
            self.0.put(path, data).await
        }
        async fn put_if_absent(
            &self,
            path: &str,
            data: Bytes,
        ) -> lakescope_storage::Result<lakescope_storage::PutOutcome> {
            self.0.put_if_absent(path, data).await
        }
        async fn delete(&self, path: &str) -> lakescope_storage::Result<()> {
            self.0.delete(path).await
        }
    }

    async fn unlisted_table(files: &[(&str, String)]) -> Result<Table> {
        let store = MemoryStore::new();
        for (k, v) in files {
            store
                .put(&format!("db.db/t/{k}"), Bytes::from(v.clone()))
                .await
                .unwrap();
        }
        Table::open(Rc::new(Unlisted(store)), "db.db/t").await
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

    #[tokio::test(flavor = "current_thread")]
    async fn without_listing_probes_from_the_hints() {
        let schema1 = SCHEMA.replace(r#""id": 0, "fields""#, r#""id": 1, "fields""#);
        let mut files: Vec<(&str, String)> = vec![
            ("schema/schema-0", SCHEMA.into()),
            ("schema/schema-1", schema1),
            ("tag/tag-v1", snapshot_json(4, 400)),
        ];
        for (name, id) in [
            ("snapshot/snapshot-3", 3),
            ("snapshot/snapshot-4", 4),
            ("snapshot/snapshot-5", 5),
        ] {
            files.push((name, snapshot_json(id, 100 * id)));
        }
        // A stale LATEST and no EARLIEST (as pypaimon writes): probed both ways from 4.
        files.push(("snapshot/LATEST", "4".into()));
        let t = unlisted_table(&files).await.unwrap();
        assert!(Table::exists_at(t.store().as_ref(), "db.db/t")
            .await
            .unwrap());
        assert!(!Table::exists_at(t.store().as_ref(), "db.db/u")
            .await
            .unwrap());
        assert_eq!(t.current_schema().id, 1);
        let schema_ids: Vec<i64> = t.schemas().await.unwrap().iter().map(|s| s.id).collect();
        assert_eq!(schema_ids, vec![0, 1]);
        assert_eq!(t.latest_snapshot_id().await.unwrap(), Some(5));
        assert_eq!(t.earliest_snapshot_id().await.unwrap(), Some(3));
        assert_eq!(t.snapshot_ids().await.unwrap(), vec![3, 4, 5]);
        assert_eq!(
            t.snapshot_at_or_before_timestamp(450)
                .await
                .unwrap()
                .unwrap()
                .id,
            4
        );
        // Tags need a listing, but one is read by name.
        assert!(t.tags().await.unwrap().is_empty());
        assert_eq!(t.tag("v1").await.unwrap().snapshot.id, 4);

        // No hints at all: found from snapshot 1 onwards.
        let no_hints: Vec<(&str, String)> = vec![
            ("schema/schema-0", SCHEMA.into()),
            ("snapshot/snapshot-1", snapshot_json(1, 100)),
            ("snapshot/snapshot-2", snapshot_json(2, 200)),
        ];
        let t = unlisted_table(&no_hints).await.unwrap();
        assert_eq!(t.snapshot_ids().await.unwrap(), vec![1, 2]);
        // Only a schema: a table without snapshots.
        let t = unlisted_table(&no_hints[..1]).await.unwrap();
        assert_eq!(t.latest_snapshot().await.unwrap(), None);
        // Hints that name no existing snapshot cannot be resolved without a listing.
        let mut lost = no_hints[..1].to_vec();
        lost.push(("snapshot/LATEST", "99".into()));
        let t = unlisted_table(&lost).await.unwrap();
        let err = t.latest_snapshot_id().await.unwrap_err().to_string();
        assert!(
            err.contains("cannot list") && err.contains("db.db/t/snapshot"),
            "{err}"
        );
        // A missing table names its path.
        let err = unlisted_table(&[]).await.unwrap_err();
        assert!(matches!(err, Error::NotFound { .. }), "{err}");
        assert!(err.to_string().contains("db.db/t/schema"), "{err}");
    }

    #[tokio::test(flavor = "current_thread")]
    async fn data_file_paths() {
        let t = table_with(&[]).await;
        let file = DataFileMeta {
            file_name: "data-1.parquet".into(),
            ..Default::default()
        };
        let p = t
            .data_file_path(
                &[Datum::String("2024-01-01".into()), Datum::Int(3)],
                1,
                &file,
            )
            .unwrap();
        assert_eq!(p, "db.db/t/dt=2024-01-01/h=3/bucket-1/data-1.parquet");
        let p = t
            .data_file_path(&[Datum::String(" ".into()), Datum::Null], 0, &file)
            .unwrap();
        assert_eq!(p, "db.db/t/dt=NULLP/h=NULLP/bucket-0/data-1.parquet");
        let p = t
            .data_file_path(
                &[Datum::String("a/b:c=d%".into()), Datum::Int(-1)],
                -2,
                &file,
            )
            .unwrap();
        assert_eq!(
            p,
            "db.db/t/dt=a%2Fb%3Ac%3Dd%25/h=-1/bucket-postpone/data-1.parquet"
        );
        assert!(t.data_file_path(&[], 0, &file).is_err());
        let ext = DataFileMeta {
            external_path: Some("s3://bucket/ext/data-1.parquet".into()),
            ..file
        };
        assert_eq!(
            t.data_file_path(&[], 0, &ext).unwrap(),
            "ext/data-1.parquet"
        );
        assert_eq!(strip_scheme("file:/tmp/x.parquet"), "tmp/x.parquet");
        assert_eq!(strip_scheme("/tmp/x.parquet"), "tmp/x.parquet");
        assert_eq!(t.index_file_path("index-1"), "db.db/t/index/index-1");
    }
}
