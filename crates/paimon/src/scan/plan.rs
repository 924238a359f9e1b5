//! Manifest replay: base + delta manifest lists → live files → splits, plus deletion vectors.

use super::prune::Pruner;
use super::{DeletionFile, DeltaPlan, PartitionFilter, Plan, Split};
use crate::error::{Error, Result};
use crate::predicate::{BoundPredicate, ColStats, Predicate};
use crate::spec::binary_row::{BinaryRow, Datum};
use crate::spec::manifest::{
    FileKind, IndexManifestEntry, ManifestEntry, ManifestFileMeta, SimpleStats,
    DELETION_VECTORS_INDEX, HASH_INDEX,
};
use crate::spec::schema::TableSchema;
use crate::spec::snapshot::Snapshot;
use crate::spec::types::DataType;
use crate::table::{ManifestSource, Table};
use std::cmp::Ordering;
use std::collections::HashMap;
use std::rc::Rc;

/// The planner's maps, looked up once or more per manifest entry: foldhash (randomly seeded).
type FastMap<K, V> = HashMap<K, V, foldhash::fast::RandomState>;

/// Identity of a file in the replay: (partition bytes, bucket, level, file name), borrowed from
/// its entry.
type FileKey<'a> = (&'a [u8], i32, i32, &'a str);

/// A live entry and the manifest it came from (for error messages).
struct Live<'a> {
    entry: &'a ManifestEntry,
    manifest: &'a str,
}

/// Plans a full scan of `snapshot`: replays its base then delta manifest lists in order
/// (ADD/DELETE keyed by partition bytes, bucket, level and file name; the last state wins),
/// keeps the partitions `filter` accepts, attaches the snapshot's deletion vectors and groups
/// the live files into [`Split`]s sorted by (partition, bucket).
///
/// A DELETE without a live ADD, or a second ADD of a live file, is [`Error::Corrupt`] naming
/// the manifest. Level-0 visibility rules are not applied.
pub async fn plan(table: &Table, snapshot: &Snapshot, filter: &PartitionFilter) -> Result<Plan> {
    plan_filtered(table, snapshot, filter, None).await
}

/// [`plan`] with a predicate over the snapshot's schema: partitions it rejects are skipped
/// (manifests by their partition stats, entries by their partition values), then data files
/// whose min/max stats show no row can match are dropped where that is safe (see
/// [`super::prune`]); [`Plan::pruned_files`] counts them. The plan may still hold rows that do
/// not match: readers filter rows after merging.
pub async fn plan_filtered(
    table: &Table,
    snapshot: &Snapshot,
    filter: &PartitionFilter,
    predicate: Option<&Predicate>,
) -> Result<Plan> {
    crate::read::support::check_snapshot(table.path(), snapshot)?;
    let schema = table.schema(snapshot.schema_id).await?;
    filter.validate(&schema)?;
    let bound = predicate.map(|p| p.bind(&schema)).transpose()?;
    let (base, delta, dvs) = futures::future::try_join3(
        table.manifest_list(&snapshot.base_manifest_list),
        table.manifest_list(&snapshot.delta_manifest_list),
        deletion_vectors(table, snapshot),
    )
    .await?;
    let mut partitions = Partitions::new(table, &schema, filter);
    partitions.predicate = bound.as_ref();
    let all_metas = base.len() + delta.len();
    let metas: Vec<&ManifestFileMeta> = base
        .iter()
        .chain(delta.iter())
        .filter(|m| partitions.may_match(m))
        .collect();
    let pruned_manifests = all_metas - metas.len();
    let manifests = fetch_kept_manifests(table, &metas, &mut partitions).await?;

    let mut items = Vec::new();
    for (meta, entries) in metas.iter().zip(&manifests) {
        for entry in entries.iter() {
            // Entries of filtered-out partitions are dropped before the replay, so pruned
            // manifests cannot leave unmatched DELETEs behind.
            if partitions.get(&meta.file_name, &entry.partition)?.is_some() {
                items.push(Live {
                    entry,
                    manifest: &meta.file_name,
                });
            }
        }
    }
    let entries = replay(items, |m| manifest_key(table, m))?;
    let mut splits = group(&mut partitions, entries, &dvs, &schema)?;
    let pruned_files = match &bound {
        Some(predicate) => prune_by_stats(table, &schema, predicate, &mut splits).await?,
        None => 0,
    };
    Ok(Plan {
        snapshot_id: snapshot.id,
        schema_id: snapshot.schema_id,
        splits,
        pruned_files,
        pruned_manifests,
    })
}

/// Loads the schemas of the planned files and drops the files the stats rule out.
async fn prune_by_stats(
    table: &Table,
    schema: &TableSchema,
    predicate: &BoundPredicate,
    splits: &mut Vec<Split>,
) -> Result<usize> {
    let ids: std::collections::BTreeSet<i64> = splits
        .iter()
        .flat_map(|s| s.files.iter().map(|f| f.schema_id))
        .collect();
    let mut file_schemas = HashMap::new();
    for id in ids {
        file_schemas.insert(id, table.schema(id).await?);
    }
    let options = schema.core_options();
    let pruner = Pruner {
        predicate,
        schema,
        file_schemas: &file_schemas,
        deletion_vectors: options.deletion_vectors_enabled()?,
        merge_engine: options.merge_engine()?,
    };
    Ok(pruner.prune(splits))
}

/// Replays entries in order: returns the live ADDs (in the order of their last ADD). A DELETE of a file
/// that is not live, or an ADD of a live file, is [`Error::Corrupt`] naming the manifest
/// (through `manifest_key`).
fn replay<'a>(
    items: Vec<Live<'a>>,
    manifest_key: impl Fn(&str) -> String,
) -> Result<Vec<Live<'a>>> {
    // Live files with the position of their (last) ADD.
    let mut live: FastMap<FileKey<'a>, (usize, Live<'a>)> =
        FastMap::with_capacity_and_hasher(items.len(), Default::default());
    for (pos, item) in items.into_iter().enumerate() {
        let entry = item.entry;
        let key = file_key(entry);
        let what = || {
            format!(
                "{} (bucket {}, level {})",
                entry.file.file_name, entry.bucket, entry.file.level
            )
        };
        match entry.kind {
            FileKind::Add => {
                if live.contains_key(&key) {
                    return Err(Error::corrupt(
                        manifest_key(item.manifest),
                        format!("ADD of {} which is already live", what()),
                    ));
                }
                live.insert(key, (pos, item));
            }
            FileKind::Delete => {
                if live.remove(&key).is_none() {
                    return Err(Error::corrupt(
                        manifest_key(item.manifest),
                        format!("DELETE of {} which is not live", what()),
                    ));
                }
            }
        }
    }
    let mut out: Vec<(usize, Live<'a>)> = live.into_values().collect();
    out.sort_by_key(|(pos, _)| *pos);
    Ok(out.into_iter().map(|(_, l)| l).collect())
}

/// Plans only `snapshot`'s own changes (its delta manifest list), for diffs and incremental
/// reads. A file both added and deleted within the delta cancels out; DELETEs of files added
/// by earlier snapshots are expected and reported in [`DeltaPlan::deleted`]. Added splits carry
/// the snapshot's deletion vectors; deleted splits carry none.
pub async fn plan_delta(table: &Table, snapshot: &Snapshot) -> Result<DeltaPlan> {
    crate::read::support::check_snapshot(table.path(), snapshot)?;
    let schema = table.schema(snapshot.schema_id).await?;
    let (delta, dvs) = futures::future::try_join(
        table.manifest_list(&snapshot.delta_manifest_list),
        deletion_vectors(table, snapshot),
    )
    .await?;
    let metas: Vec<&ManifestFileMeta> = delta.iter().collect();
    let manifests = fetch_manifests(table, &metas).await?;

    let mut added: HashMap<FileKey<'_>, (usize, Live<'_>)> = HashMap::new();
    let mut deleted: Vec<Live<'_>> = Vec::new();
    let all = metas
        .iter()
        .zip(&manifests)
        .flat_map(|(meta, entries)| entries.iter().map(move |e| (meta, e)));
    for (pos, (meta, entry)) in all.enumerate() {
        let key = file_key(entry);
        let item = Live {
            entry,
            manifest: &meta.file_name,
        };
        match entry.kind {
            FileKind::Add => {
                added.insert(key, (pos, item));
            }
            FileKind::Delete => {
                if added.remove(&key).is_none() {
                    deleted.push(item);
                }
            }
        }
    }
    let mut added: Vec<(usize, Live<'_>)> = added.into_values().collect();
    added.sort_by_key(|(pos, _)| *pos);
    let added_entries: Vec<Live<'_>> = added.into_iter().map(|(_, l)| l).collect();
    let no_dvs = HashMap::new();
    let mut partitions = Partitions::new(table, &schema, &PartitionFilter::All);
    Ok(DeltaPlan {
        snapshot_id: snapshot.id,
        schema_id: snapshot.schema_id,
        added: group(&mut partitions, added_entries, &dvs, &schema)?,
        deleted: group(&mut partitions, deleted, &no_dvs, &schema)?,
    })
}

fn file_key(entry: &ManifestEntry) -> FileKey<'_> {
    (
        &entry.partition,
        entry.bucket,
        entry.file.level,
        &entry.file.file_name,
    )
}

fn manifest_key(table: &Table, name: &str) -> String {
    lakescope_storage::join(table.path(), &format!("manifest/{name}"))
}

/// Manifests read ahead while the planner decodes the earlier ones.
const MANIFEST_READS_AHEAD: usize = 16;

/// The entries of the manifests, in list order, of the partitions `partitions` keeps (a cached
/// manifest whole): up to [`MANIFEST_READS_AHEAD`] files are read concurrently and each is decoded
/// one record at a time, dropping other partitions' entries, so that planning a few partitions of
/// a large table holds only their entries.
async fn fetch_kept_manifests(
    table: &Table,
    metas: &[&ManifestFileMeta],
    partitions: &mut Partitions<'_>,
) -> Result<Vec<Rc<Vec<ManifestEntry>>>> {
    use futures::StreamExt;
    let mut sources = futures::stream::iter(metas.iter().map(|m| async move {
        Ok::<_, Error>((&m.file_name, table.manifest_or_bytes(&m.file_name).await?))
    }))
    .buffered(MANIFEST_READS_AHEAD);
    let mut manifests = Vec::with_capacity(metas.len());
    while let Some(source) = sources.next().await {
        let (name, source) = source?;
        manifests.push(match source {
            ManifestSource::Decoded(entries) => entries,
            ManifestSource::Encoded(bytes) => table
                .decode_manifest_kept(name, &bytes, |p| Ok(partitions.get(name, p)?.is_some()))?,
        });
    }
    Ok(manifests)
}

/// Fetches (and decodes) the manifests concurrently, in list order.
async fn fetch_manifests(
    table: &Table,
    metas: &[&ManifestFileMeta],
) -> Result<Vec<Rc<Vec<ManifestEntry>>>> {
    futures::future::try_join_all(metas.iter().map(|m| table.manifest(&m.file_name))).await
}

/// Deletion vectors of the snapshot by (partition bytes, bucket), then data file name.
type DvMap = HashMap<(Vec<u8>, i32), HashMap<String, DeletionFile>>;

async fn deletion_vectors(table: &Table, snapshot: &Snapshot) -> Result<DvMap> {
    let Some(name) = snapshot.index_manifest.as_deref() else {
        return Ok(HashMap::new());
    };
    let entries = table.index_manifest(name).await?;
    if let Some(e) = entries
        .iter()
        .find(|e| e.index_type != DELETION_VECTORS_INDEX && e.index_type != HASH_INDEX)
    {
        // Unknown means refuse: global (btree, bitmap, vector, ...) and future index kinds are
        // not implemented, so whether they change a read's rows is not known here.
        return Err(Error::unsupported(
            manifest_key(table, name),
            format!("index type '{}' (index file {})", e.index_type, e.file_name),
        ));
    }
    // Replay: the index manifest is cumulative, DELETEs of unknown files are tolerated.
    let mut live: HashMap<(Vec<u8>, i32, String), &IndexManifestEntry> = HashMap::new();
    let mut order = Vec::new();
    for e in entries
        .iter()
        .filter(|e| e.index_type == DELETION_VECTORS_INDEX)
    {
        let key = (e.partition.clone(), e.bucket, e.file_name.clone());
        match e.kind {
            FileKind::Add => {
                order.push(key.clone());
                live.insert(key, e);
            }
            FileKind::Delete => {
                live.remove(&key);
            }
        }
    }
    let mut out: DvMap = HashMap::new();
    for key in order {
        let Some(e) = live.remove(&key) else { continue };
        let path = match e.external_path.as_deref().filter(|p| !p.is_empty()) {
            Some(ext) => table.external_file_key(&e.file_name, ext)?,
            None => table.index_file_path(&e.file_name),
        };
        let files = out.entry((e.partition.clone(), e.bucket)).or_default();
        for dv in e.deletion_vectors.iter().flatten() {
            files.insert(
                dv.data_file_name.clone(),
                DeletionFile {
                    index_file_path: path.clone(),
                    offset: i64::from(dv.offset),
                    length: i64::from(dv.length),
                    cardinality: dv.cardinality,
                },
            );
        }
    }
    Ok(out)
}

/// Decodes partitions (once per distinct BinaryRow) and applies the partition filter.
struct Partitions<'a> {
    table: &'a Table,
    schema: &'a TableSchema,
    filter: &'a PartitionFilter,
    /// Predicate evaluated on partition values (other columns unknown).
    predicate: Option<&'a BoundPredicate>,
    /// Field ids of the partition columns, in partition-key order.
    ids: Vec<i32>,
    types: Vec<DataType>,
    /// Decoded values, `None` when the filter rejects the partition.
    cache: FastMap<Vec<u8>, Option<Vec<Datum>>>,
}

impl<'a> Partitions<'a> {
    fn new(table: &'a Table, schema: &'a TableSchema, filter: &'a PartitionFilter) -> Self {
        Partitions {
            table,
            schema,
            filter,
            predicate: None,
            ids: schema.partition_fields().iter().map(|f| f.id).collect(),
            types: schema.partition_types(),
            cache: FastMap::default(),
        }
    }

    /// The partition's values, or `None` if filtered out; errors name `manifest`.
    fn get(&mut self, manifest: &str, bytes: &[u8]) -> Result<Option<&Vec<Datum>>> {
        if !self.cache.contains_key(bytes) {
            let file = manifest_key(self.table, manifest);
            let values = BinaryRow::decode_in(&file, bytes, &self.types)?;
            let keep = self.filter.matches(self.schema, &values)
                && self.predicate.is_none_or(|p| {
                    p.may_match(&|id| {
                        let i = self.ids.iter().position(|x| *x == id)?;
                        values.get(i).map(ColStats::exact)
                    })
                });
            let keep = keep.then_some(values);
            self.cache.insert(bytes.to_vec(), keep);
        }
        Ok(self.cache.get(bytes).and_then(Option::as_ref))
    }

    /// Whether a manifest whose partitions span `stats` may hold a partition the filter
    /// accepts. Undecodable stats never prune.
    fn may_match(&self, meta: &ManifestFileMeta) -> bool {
        self.filter_may_match(&meta.partition_stats) && self.predicate_may_match(meta)
    }

    /// The predicate on a manifest's partition stats (rows: its entries).
    fn predicate_may_match(&self, meta: &ManifestFileMeta) -> bool {
        let Some(predicate) = self.predicate else {
            return true;
        };
        let stats = &meta.partition_stats;
        let (Ok(min), Ok(max)) = (
            BinaryRow::decode(&stats.min_values, &self.types),
            BinaryRow::decode(&stats.max_values, &self.types),
        ) else {
            return true;
        };
        let rows = meta.num_added_files.saturating_add(meta.num_deleted_files);
        predicate.may_match(&|id| {
            let i = self.ids.iter().position(|x| *x == id)?;
            Some(ColStats {
                min: min.get(i).filter(|d| !d.is_null()).cloned(),
                max: max.get(i).filter(|d| !d.is_null()).cloned(),
                null_count: stats.null_counts.get(i).copied().flatten(),
                row_count: Some(rows),
            })
        })
    }

    fn filter_may_match(&self, stats: &SimpleStats) -> bool {
        let PartitionFilter::Eq(conds) = self.filter else {
            return true;
        };
        let (Ok(min), Ok(max)) = (
            BinaryRow::decode(&stats.min_values, &self.types),
            BinaryRow::decode(&stats.max_values, &self.types),
        ) else {
            return true;
        };
        conds.iter().all(|(name, want)| {
            let Some(i) = self.schema.partition_keys.iter().position(|k| k == name) else {
                return true;
            };
            if want.is_null() {
                // Only a manifest known to have no NULL in this column can be skipped.
                return stats.null_counts.get(i).copied().flatten() != Some(0);
            }
            match (min.get(i), max.get(i)) {
                (Some(lo), Some(hi)) if !lo.is_null() && !hi.is_null() => {
                    want.total_cmp(lo).is_ge() && want.total_cmp(hi).is_le()
                }
                _ => true,
            }
        })
    }
}

/// Groups entries into splits by (partition, bucket), sorted; entries of filtered-out
/// partitions are skipped.
fn group(
    partitions: &mut Partitions<'_>,
    entries: Vec<Live<'_>>,
    dvs: &DvMap,
    schema: &TableSchema,
) -> Result<Vec<Split>> {
    let key_types: Vec<DataType> = schema
        .trimmed_primary_key_fields()
        .into_iter()
        .map(|f| f.data_type.clone())
        .collect();
    // Each split with the deletion vectors of its (partition, bucket), keyed by the entries'
    // own partition bytes (no copy per entry).
    type Group<'d> = (Split, Option<&'d HashMap<String, DeletionFile>>);
    let mut groups: FastMap<(&[u8], i32), Group<'_>> = FastMap::default();
    for Live { entry, manifest } in entries {
        let Some(values) = partitions.get(manifest, &entry.partition)? else {
            continue;
        };
        let (split, split_dvs) = groups
            .entry((&entry.partition, entry.bucket))
            .or_insert_with(|| {
                let split = Split {
                    partition: values.clone(),
                    partition_bytes: entry.partition.clone(),
                    bucket: entry.bucket,
                    total_buckets: None,
                    files: Vec::new(),
                    deletion_files: HashMap::new(),
                    rows: None,
                };
                (split, dvs.get(&(entry.partition.clone(), entry.bucket)))
            });
        if entry.total_buckets.is_some() {
            split.total_buckets = entry.total_buckets;
        }
        if let Some(dv) = split_dvs.and_then(|m| m.get(&entry.file.file_name)) {
            split
                .deletion_files
                .insert(entry.file.file_name.clone(), dv.clone());
        }
        split.files.push(entry.file.clone());
    }
    let mut splits: Vec<Split> = groups.into_values().map(|(split, _)| split).collect();
    for split in &mut splits {
        sort_files(split, &key_types);
    }
    splits.sort_by(|a, b| cmp_datums(&a.partition, &b.partition).then(a.bucket.cmp(&b.bucket)));
    Ok(splits)
}

fn cmp_datums(a: &[Datum], b: &[Datum]) -> Ordering {
    a.iter()
        .zip(b)
        .map(|(x, y)| x.total_cmp(y))
        .find(|o| o.is_ne())
        .unwrap_or_else(|| a.len().cmp(&b.len()))
}

/// Sorts by (level, decoded min key, min sequence number, file name).
fn sort_files(split: &mut Split, key_types: &[DataType]) {
    let mut keyed: Vec<(Vec<Datum>, _)> = std::mem::take(&mut split.files)
        .into_iter()
        .map(|f| {
            let key = BinaryRow::decode(&f.min_key, key_types).unwrap_or_default();
            (key, f)
        })
        .collect();
    keyed.sort_by(|(ka, a), (kb, b)| {
        a.level
            .cmp(&b.level)
            .then_with(|| cmp_datums(ka, kb))
            .then(a.min_sequence_number.cmp(&b.min_sequence_number))
            .then_with(|| a.file_name.cmp(&b.file_name))
    });
    split.files = keyed.into_iter().map(|(_, f)| f).collect();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::manifest::DataFileMeta;

    fn entry(kind: FileKind, name: &str, level: i32) -> ManifestEntry {
        ManifestEntry {
            kind,
            partition: vec![0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
            bucket: 0,
            total_buckets: Some(1),
            file: std::sync::Arc::new(DataFileMeta {
                file_name: name.into(),
                level,
                ..Default::default()
            }),
        }
    }

    fn names(live: &[Live<'_>]) -> Vec<String> {
        live.iter()
            .map(|l| format!("{}@{}", l.entry.file.file_name, l.entry.file.level))
            .collect()
    }

    fn run<'a>(items: &'a [(&'a str, ManifestEntry)]) -> Result<Vec<Live<'a>>> {
        let live = items
            .iter()
            .map(|(m, e)| Live {
                entry: e,
                manifest: m,
            })
            .collect();
        replay(live, |m| format!("t/manifest/{m}"))
    }

    #[test]
    fn last_state_wins() {
        use FileKind::*;
        let items = [
            ("m1", entry(Add, "a", 0)),
            ("m1", entry(Add, "b", 0)),
            ("m2", entry(Delete, "a", 0)),
            ("m2", entry(Delete, "b", 0)),
            ("m2", entry(Add, "c", 5)),
            // Same name at another level is another file.
            ("m3", entry(Add, "c", 0)),
            ("m3", entry(Add, "b", 0)),
        ];
        assert_eq!(names(&run(&items).unwrap()), ["c@5", "c@0", "b@0"]);
    }

    #[test]
    fn unmatched_delete_is_corrupt_naming_the_manifest() {
        use FileKind::*;
        let items = [("m1", entry(Add, "a", 0)), ("m2", entry(Delete, "a", 1))];
        let err = run(&items).err().unwrap();
        assert!(
            matches!(&err, Error::Corrupt { file, reason } if file == "t/manifest/m2" && reason.contains("DELETE of a")),
            "{err}"
        );
        let items = [("m1", entry(Add, "a", 0)), ("m9", entry(Add, "a", 0))];
        let err = run(&items).err().unwrap();
        assert!(
            err.to_string().starts_with("t/manifest/m9: ADD of a"),
            "{err}"
        );
    }
}
