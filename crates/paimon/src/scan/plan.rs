//! Manifest replay: base + delta manifest lists → live files → splits, plus deletion vectors.

use super::{DeletionFile, DeltaPlan, PartitionFilter, Plan, Split};
use crate::error::{Error, Result};
use crate::spec::binary_row::{BinaryRow, Datum};
use crate::spec::manifest::{
    FileKind, IndexManifestEntry, ManifestEntry, ManifestFileMeta, DELETION_VECTORS_INDEX,
};
use crate::spec::schema::TableSchema;
use crate::spec::snapshot::Snapshot;
use crate::spec::types::DataType;
use crate::table::{strip_scheme, Table};
use std::cmp::Ordering;
use std::collections::HashMap;
use std::rc::Rc;

/// Identity of a file in the replay: (partition bytes, bucket, level, file name).
type FileKey = (Vec<u8>, i32, i32, String);

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
    let schema = table.schema(snapshot.schema_id).await?;
    filter.validate(&schema)?;
    let (base, delta, dvs) = futures::future::try_join3(
        table.manifest_list(&snapshot.base_manifest_list),
        table.manifest_list(&snapshot.delta_manifest_list),
        deletion_vectors(table, snapshot),
    )
    .await?;
    let metas: Vec<&ManifestFileMeta> = base.iter().chain(delta.iter()).collect();
    let manifests = fetch_manifests(table, &metas).await?;

    let mut live: HashMap<FileKey, Live<'_>> = HashMap::new();
    let mut order: Vec<FileKey> = Vec::new();
    for (meta, entries) in metas.iter().zip(&manifests) {
        let manifest = manifest_key(table, &meta.file_name);
        for entry in entries.iter() {
            let key = file_key(entry);
            match entry.kind {
                FileKind::Add => {
                    if live.contains_key(&key) {
                        return Err(Error::corrupt(
                            manifest,
                            format!(
                                "ADD of {} (bucket {}, level {}) which is already live",
                                entry.file.file_name, entry.bucket, entry.file.level
                            ),
                        ));
                    }
                    order.push(key.clone());
                    live.insert(
                        key,
                        Live {
                            entry,
                            manifest: &meta.file_name,
                        },
                    );
                }
                FileKind::Delete => {
                    if live.remove(&key).is_none() {
                        return Err(Error::corrupt(
                            manifest,
                            format!(
                                "DELETE of {} (bucket {}, level {}) which is not live",
                                entry.file.file_name, entry.bucket, entry.file.level
                            ),
                        ));
                    }
                }
            }
        }
    }
    let entries: Vec<Live<'_>> = order.into_iter().filter_map(|k| live.remove(&k)).collect();
    let splits = group(table, &schema, filter, entries, &dvs)?;
    Ok(Plan {
        snapshot_id: snapshot.id,
        schema_id: snapshot.schema_id,
        splits,
    })
}

/// Plans only `snapshot`'s own changes (its delta manifest list), for diffs and incremental
/// reads. A file both added and deleted within the delta cancels out; DELETEs of files added
/// by earlier snapshots are expected and reported in [`DeltaPlan::deleted`]. Added splits carry
/// the snapshot's deletion vectors; deleted splits carry none.
pub async fn plan_delta(table: &Table, snapshot: &Snapshot) -> Result<DeltaPlan> {
    let schema = table.schema(snapshot.schema_id).await?;
    let (delta, dvs) = futures::future::try_join(
        table.manifest_list(&snapshot.delta_manifest_list),
        deletion_vectors(table, snapshot),
    )
    .await?;
    let metas: Vec<&ManifestFileMeta> = delta.iter().collect();
    let manifests = fetch_manifests(table, &metas).await?;

    let mut added: HashMap<FileKey, Live<'_>> = HashMap::new();
    let mut added_order: Vec<FileKey> = Vec::new();
    let mut deleted: Vec<Live<'_>> = Vec::new();
    for (meta, entries) in metas.iter().zip(&manifests) {
        for entry in entries.iter() {
            let key = file_key(entry);
            let item = Live {
                entry,
                manifest: &meta.file_name,
            };
            match entry.kind {
                FileKind::Add => {
                    added_order.push(key.clone());
                    added.insert(key, item);
                }
                FileKind::Delete => {
                    if added.remove(&key).is_none() {
                        deleted.push(item);
                    }
                }
            }
        }
    }
    let added_entries: Vec<Live<'_>> = added_order
        .into_iter()
        .filter_map(|k| added.remove(&k))
        .collect();
    let no_dvs = HashMap::new();
    Ok(DeltaPlan {
        snapshot_id: snapshot.id,
        schema_id: snapshot.schema_id,
        added: group(table, &schema, &PartitionFilter::All, added_entries, &dvs)?,
        deleted: group(table, &schema, &PartitionFilter::All, deleted, &no_dvs)?,
    })
}

fn file_key(entry: &ManifestEntry) -> FileKey {
    (
        entry.partition.clone(),
        entry.bucket,
        entry.file.level,
        entry.file.file_name.clone(),
    )
}

fn manifest_key(table: &Table, name: &str) -> String {
    lakescope_storage::join(table.path(), &format!("manifest/{name}"))
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
            Some(ext) => strip_scheme(ext),
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

/// Groups entries into splits by (partition, bucket), filtering partitions and sorting.
fn group(
    table: &Table,
    schema: &TableSchema,
    filter: &PartitionFilter,
    entries: Vec<Live<'_>>,
    dvs: &DvMap,
) -> Result<Vec<Split>> {
    let partition_types = schema.partition_types();
    let key_types: Vec<DataType> = schema
        .trimmed_primary_key_fields()
        .into_iter()
        .map(|f| f.data_type.clone())
        .collect();
    let mut decoded: HashMap<Vec<u8>, Option<Vec<Datum>>> = HashMap::new();
    let mut groups: HashMap<(Vec<u8>, i32), Split> = HashMap::new();
    for Live { entry, manifest } in entries {
        let values = match decoded.get(&entry.partition) {
            Some(v) => v.clone(),
            None => {
                let values = BinaryRow::decode_in(
                    &manifest_key(table, manifest),
                    &entry.partition,
                    &partition_types,
                )?;
                let keep = filter.matches(schema, &values).then_some(values);
                decoded.insert(entry.partition.clone(), keep.clone());
                keep
            }
        };
        let Some(values) = values else { continue };
        let group_key = (entry.partition.clone(), entry.bucket);
        let split = groups.entry(group_key.clone()).or_insert_with(|| Split {
            partition: values,
            partition_bytes: entry.partition.clone(),
            bucket: entry.bucket,
            total_buckets: None,
            files: Vec::new(),
            deletion_files: HashMap::new(),
        });
        if entry.total_buckets.is_some() {
            split.total_buckets = entry.total_buckets;
        }
        if let Some(dv) = dvs
            .get(&group_key)
            .and_then(|m| m.get(&entry.file.file_name))
        {
            split
                .deletion_files
                .insert(entry.file.file_name.clone(), dv.clone());
        }
        split.files.push(entry.file.clone());
    }
    let mut splits: Vec<Split> = groups.into_values().collect();
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
