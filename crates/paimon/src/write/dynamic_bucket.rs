//! Dynamic bucket mode (`bucket = -1` primary-key tables): key → bucket through HASH index files.
//!
//! As Java's `HashBucketAssigner`/`PartitionIndex` with one assigner: the hash is the trimmed
//! primary key's `BinaryRow.hashCode()`. A known hash keeps its bucket; a new one goes to the
//! lowest bucket holding fewer than `dynamic-bucket.target-row-num` hashes, else to the lowest
//! unused bucket number. Each changed bucket gets a new index file (all its hashes, 4-byte
//! big-endian each) replacing the old one in the cumulative index manifest.
//!
//! INSERT OVERWRITE assigns against an empty index, as Java's `SimpleHashBucketAssigner` and its
//! index maintainer with `ignorePreviousFiles` do: every partition it writes is replaced, so
//! the commit drops those partitions' index entries and keeps only the new files.

use super::env::WriteEnv;
use crate::error::{Error, Result};
use crate::spec::manifest::{FileKind, IndexManifestEntry, HASH_INDEX};
use crate::spec::snapshot::Snapshot;
use crate::table::Table;
use apache_avro::types::Value;
use apache_avro::{Schema, Writer};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// The index part of a commit: which index manifest the assignment started from, and the
/// index files that replace their (partition, bucket)'s previous one.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct IndexChange {
    /// `indexManifest` of the snapshot the buckets were assigned against.
    pub base_index_manifest: Option<String>,
    /// New HASH index files (ADD entries).
    pub added: Vec<IndexManifestEntry>,
    /// Assigned against an empty index for INSERT OVERWRITE: valid only in an overwrite
    /// commit, which removes the overwritten partitions' index entries.
    pub for_overwrite: bool,
}

#[derive(Debug, Default)]
struct PartitionIndex {
    hash_to_bucket: HashMap<i32, i32>,
    hashes: BTreeMap<i32, Vec<i32>>,
    changed: BTreeSet<i32>,
}

/// Assigns buckets to keys of a dynamic-bucket table.
#[derive(Debug)]
pub struct DynamicBucketAssigner {
    target: usize,
    base: Option<String>,
    for_overwrite: bool,
    partitions: HashMap<Vec<u8>, PartitionIndex>,
    /// Cross-partition upsert tables: the bucket of each input row, assigned beforehand by
    /// the global key index (no HASH index is kept).
    planned: Option<Vec<i32>>,
}

/// `dynamic-bucket.target-row-num` (default 2 000 000, at least 1).
fn target_row_num(table: &Table) -> Result<usize> {
    let target: usize = match table.options().get("dynamic-bucket.target-row-num") {
        None => 2_000_000,
        Some(v) => v.trim().parse().map_err(|_| {
            Error::Invalid(format!(
                "{}: dynamic-bucket.target-row-num '{v}' is not a number",
                table.path()
            ))
        })?,
    };
    Ok(target.max(1))
}

impl DynamicBucketAssigner {
    /// An assigner for INSERT OVERWRITE: starts from an empty index (the partitions it writes
    /// are all replaced), as Java's `SimpleHashBucketAssigner` in overwrite mode.
    pub fn for_overwrite(table: &Table) -> Result<Self> {
        Ok(Self {
            target: target_row_num(table)?,
            base: None,
            for_overwrite: true,
            partitions: HashMap::new(),
            planned: None,
        })
    }

    /// An assigner handing out buckets assigned beforehand, row by row (cross-partition
    /// upsert tables: see `cross_partition`); it writes no index.
    pub(crate) fn planned(buckets: Vec<i32>) -> Self {
        Self {
            target: 1,
            base: None,
            for_overwrite: false,
            partitions: HashMap::new(),
            planned: Some(buckets),
        }
    }

    /// Loads the HASH index of `snapshot` (none for an empty table).
    pub async fn load(table: &Table, snapshot: Option<&Snapshot>) -> Result<Self> {
        if super::cross_partition::applies(table.current_schema())? {
            return Err(Error::Invalid(format!(
                "{}: a cross-partition upsert table has no HASH index: its buckets come from a global key index (write it with write::write)",
                table.path()
            )));
        }
        let target = target_row_num(table)?;
        let base = snapshot.and_then(|s| s.index_manifest.clone());
        let mut partitions: HashMap<Vec<u8>, PartitionIndex> = HashMap::new();
        if let Some(name) = &base {
            for e in table.index_manifest(name).await?.iter() {
                if e.index_type != HASH_INDEX || e.kind != FileKind::Add {
                    continue;
                }
                let path = table.index_file_path(&e.file_name);
                let bytes = table.store().get(&path).await?;
                if bytes.len() % 4 != 0 {
                    return Err(Error::corrupt(
                        path,
                        format!("hash index of {} bytes is not a multiple of 4", bytes.len()),
                    ));
                }
                let p = partitions.entry(e.partition.clone()).or_default();
                let list = p.hashes.entry(e.bucket).or_default();
                for w in bytes.chunks_exact(4) {
                    let h = i32::from_be_bytes([w[0], w[1], w[2], w[3]]);
                    p.hash_to_bucket.insert(h, e.bucket);
                    list.push(h);
                }
            }
        }
        Ok(Self {
            target,
            base,
            for_overwrite: false,
            partitions,
            planned: None,
        })
    }

    /// The bucket of input row `row`: the planned one, else [`DynamicBucketAssigner::assign`].
    pub(crate) fn assign_row(&mut self, row: usize, partition: &[u8], hash: i32) -> Result<i32> {
        match &self.planned {
            Some(buckets) => buckets.get(row).copied().ok_or_else(|| {
                Error::Invalid(format!("dynamic bucket: no bucket planned for row {row}"))
            }),
            None => Ok(self.assign(partition, hash)),
        }
    }

    /// The bucket of a key with this hash in this partition (remembered for the index).
    pub fn assign(&mut self, partition: &[u8], hash: i32) -> i32 {
        let p = self.partitions.entry(partition.to_vec()).or_default();
        if let Some(b) = p.hash_to_bucket.get(&hash) {
            return *b;
        }
        let target = self.target;
        let bucket = match p.hashes.iter().find(|(_, h)| h.len() < target) {
            Some((b, _)) => *b,
            None => (0..).find(|b| !p.hashes.contains_key(b)).unwrap_or(0),
        };
        p.hash_to_bucket.insert(hash, bucket);
        p.hashes.entry(bucket).or_default().push(hash);
        p.changed.insert(bucket);
        bucket
    }

    /// Writes one index file per changed (partition, bucket) and returns the index change.
    pub async fn finish(self, table: &Table, env: &dyn WriteEnv) -> Result<IndexChange> {
        let uuid = env.uuid();
        let mut added = Vec::new();
        let mut parts: Vec<(&Vec<u8>, &PartitionIndex)> = self.partitions.iter().collect();
        parts.sort_by(|a, b| a.0.cmp(b.0));
        for (partition, p) in parts {
            for bucket in &p.changed {
                let hashes = p.hashes.get(bucket).map(Vec::as_slice).unwrap_or_default();
                let bytes: Vec<u8> = hashes.iter().flat_map(|h| h.to_be_bytes()).collect();
                let file_name = format!("index-{uuid}-{}", added.len());
                let size = bytes.len() as i64;
                table
                    .store()
                    .put(&table.index_file_path(&file_name), bytes.into())
                    .await?;
                added.push(IndexManifestEntry {
                    kind: FileKind::Add,
                    partition: partition.clone(),
                    bucket: *bucket,
                    index_type: HASH_INDEX.to_string(),
                    file_name,
                    file_size: size,
                    row_count: hashes.len() as i64,
                    deletion_vectors: None,
                    external_path: None,
                });
            }
        }
        Ok(IndexChange {
            base_index_manifest: self.base,
            added,
            for_overwrite: self.for_overwrite,
        })
    }
}

const INDEX_MANIFEST_SCHEMA: &str = r#"{"type":"record","name":"org.apache.paimon.avro.generated.record","fields":[
  {"name":"_VERSION","type":"int"},
  {"name":"_KIND","type":"int"},
  {"name":"_PARTITION","type":"bytes"},
  {"name":"_BUCKET","type":"int"},
  {"name":"_INDEX_TYPE","type":"string"},
  {"name":"_FILE_NAME","type":"string"},
  {"name":"_FILE_SIZE","type":"long"},
  {"name":"_ROW_COUNT","type":"long"},
  {"name":"_DELETIONS_VECTORS_RANGES","type":["null",{"type":"array","items":{"type":"record",
    "name":"org.apache.paimon.avro.generated.record__DELETIONS_VECTORS_RANGES","fields":[
    {"name":"f0","type":"string"},{"name":"f1","type":"int"},{"name":"f2","type":"int"},
    {"name":"_CARDINALITY","type":["null","long"],"default":null}]}}],"default":null},
  {"name":"_EXTERNAL_PATH","type":["null","string"],"default":null}
]}"#;

/// Encodes a (cumulative) index manifest.
pub fn encode_index_manifest(
    file: &str,
    entries: &[IndexManifestEntry],
    codec: apache_avro::Codec,
) -> Result<Vec<u8>> {
    let err = |e: apache_avro::Error| Error::corrupt(file, format!("writing Avro: {e}"));
    let schema = Schema::parse_str(INDEX_MANIFEST_SCHEMA).map_err(err)?;
    let mut w = Writer::with_codec(&schema, Vec::new(), codec).map_err(err)?;
    let opt = |v: Option<Value>| match v {
        Some(x) => Value::Union(1, Box::new(x)),
        None => Value::Union(0, Box::new(Value::Null)),
    };
    for e in entries {
        let dvs = e.deletion_vectors.as_ref().map(|v| {
            Value::Array(
                v.iter()
                    .map(|d| {
                        Value::Record(vec![
                            ("f0".into(), Value::String(d.data_file_name.clone())),
                            ("f1".into(), Value::Int(d.offset)),
                            ("f2".into(), Value::Int(d.length)),
                            ("_CARDINALITY".into(), opt(d.cardinality.map(Value::Long))),
                        ])
                    })
                    .collect(),
            )
        });
        let rec = Value::Record(vec![
            ("_VERSION".into(), Value::Int(1)),
            (
                "_KIND".into(),
                Value::Int(if e.kind == FileKind::Add { 0 } else { 1 }),
            ),
            ("_PARTITION".into(), Value::Bytes(e.partition.clone())),
            ("_BUCKET".into(), Value::Int(e.bucket)),
            ("_INDEX_TYPE".into(), Value::String(e.index_type.clone())),
            ("_FILE_NAME".into(), Value::String(e.file_name.clone())),
            ("_FILE_SIZE".into(), Value::Long(e.file_size)),
            ("_ROW_COUNT".into(), Value::Long(e.row_count)),
            ("_DELETIONS_VECTORS_RANGES".into(), opt(dvs)),
            (
                "_EXTERNAL_PATH".into(),
                opt(e.external_path.clone().map(Value::String)),
            ),
        ]);
        w.append_value(rec).map_err(err)?;
    }
    w.into_inner().map_err(err)
}
