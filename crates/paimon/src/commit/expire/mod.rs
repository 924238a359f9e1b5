//! Snapshot expiration as Paimon's `ExpireSnapshotsImpl` (`snapshot.num-retained.*`, `snapshot.time-retained`).
//!
//! The range `[earliest, end)` is chosen as Java does: at most `retain_max` snapshots stay, at
//! least `retain_min`; a snapshot only expires once its successor is older than the retention
//! time (Paimon 1.x; 0.9 looked at the snapshot itself); the oldest snapshot a consumer
//! (`consumer/consumer-<id>`) still needs stays; at most `max_deletes` go at a time. Then, in
//! Java's order: the data files the snapshots in `(begin, end]` deleted (less those the nearest
//! older tag still holds), the changelog files of `[begin, end)`, the manifests, manifest lists,
//! index files, index manifests and statistics that neither the `end` snapshot nor an
//! overlapping tag references, the snapshot files, and last `EARLIEST`. Every file removed is
//! unreferenced by the retained snapshots and the tags, so a run that dies at any step leaves
//! them all readable; a rerun finishes the work (files it can no longer find stay as orphans).
//!
//! Tables whose changelog outlives their snapshots (`changelog.num-retained.*` /
//! `changelog.time-retained` above the snapshot settings) are not expired after commits: that
//! needs Paimon's long-lived changelog files, which lakescope does not write.

mod files;

use super::tags::parse_duration;
use crate::error::{Error, Result};
use crate::spec::options::CoreOptions;
use crate::spec::snapshot::Snapshot;
use crate::table::Table;
use crate::write::WriteEnv;
use files::FileId;
use lakescope_storage::join;
use std::collections::hash_map::Entry;
use std::collections::{HashMap, HashSet};

/// Paimon's defaults: `snapshot.num-retained.min`, `.max`, `snapshot.time-retained` (1 h),
/// `snapshot.expire.limit`.
const RETAIN_MIN: i64 = 10;
const RETAIN_MAX: i64 = i32::MAX as i64;
const TIME_RETAINED: &str = "1 h";
const EXPIRE_LIMIT: i64 = 50;

/// What to keep (Java's `ExpireConfig` for snapshots).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExpireConfig {
    /// Most snapshots kept (`snapshot.num-retained.max`).
    pub retain_max: i64,
    /// Fewest snapshots kept (`snapshot.num-retained.min`, at least 1).
    pub retain_min: i64,
    /// A snapshot whose successor was committed at or after this time (epoch ms) is kept
    /// (now minus `snapshot.time-retained`, or the procedure's `older_than`).
    pub older_than_millis: i64,
    /// Most snapshots expired in one run (`snapshot.expire.limit`).
    pub max_deletes: i64,
}

fn int_option(o: &CoreOptions, key: &str, default: i64) -> Result<i64> {
    match o.get(key) {
        None => Ok(default),
        Some(v) => v
            .trim()
            .parse::<i32>()
            .map(i64::from)
            .map_err(|_| Error::Invalid(format!("option {key} '{v}' is not an integer"))),
    }
}

fn duration_ms(o: &CoreOptions, key: &str, default: &str) -> Result<i64> {
    let d = parse_duration(o.get(key).unwrap_or(default))
        .map_err(|e| Error::Invalid(format!("option {key}: {e}")))?;
    Ok(i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

impl ExpireConfig {
    /// The table's options (Paimon's defaults where unset), with `now_millis` as the time.
    pub fn for_table(table: &Table, now_millis: i64) -> Result<Self> {
        let o = table.options();
        Ok(Self {
            retain_max: int_option(&o, "snapshot.num-retained.max", RETAIN_MAX)?,
            retain_min: int_option(&o, "snapshot.num-retained.min", RETAIN_MIN)?,
            older_than_millis: now_millis.saturating_sub(duration_ms(
                &o,
                "snapshot.time-retained",
                TIME_RETAINED,
            )?),
            max_deletes: int_option(&o, "snapshot.expire.limit", EXPIRE_LIMIT)?,
        })
    }

    fn validate(&self, table: &Table) -> Result<()> {
        if self.retain_min < 1 {
            return Err(Error::Invalid(format!(
                "{}: snapshot.num-retained.min ({}) must be at least 1",
                table.path(),
                self.retain_min
            )));
        }
        if self.retain_max < self.retain_min {
            return Err(Error::Invalid(format!(
                "{}: retainMax ({}) must not be less than retainMin ({}).",
                table.path(),
                self.retain_max,
                self.retain_min
            )));
        }
        Ok(())
    }
}

/// Whether the table keeps its changelog longer than its snapshots (Java's
/// `changelogLifecycleDecoupled`): a `changelog.*` retention above the snapshot one.
pub fn changelog_decoupled(table: &Table) -> Result<bool> {
    let o = table.options();
    let max = int_option(&o, "snapshot.num-retained.max", RETAIN_MAX)?;
    let min = int_option(&o, "snapshot.num-retained.min", RETAIN_MIN)?;
    let time = duration_ms(&o, "snapshot.time-retained", TIME_RETAINED)?;
    let time_default = o.get("snapshot.time-retained").unwrap_or(TIME_RETAINED);
    Ok(int_option(&o, "changelog.num-retained.max", max)? > max
        || int_option(&o, "changelog.num-retained.min", min)? > min
        || duration_ms(&o, "changelog.time-retained", time_default)? > time)
}

/// What an expiration removed.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Expiration {
    /// Ids of the snapshot files deleted, ascending.
    pub snapshots: Vec<i64>,
    /// Store keys of the other files deleted (data, changelog, manifests, index, statistics).
    pub files: Vec<String>,
}

/// The expiration Paimon's writers run after each commit: `None` when the table is
/// `write-only` or its changelog is decoupled (see the module docs).
pub async fn expire_after_commit(table: &Table, env: &dyn WriteEnv) -> Result<Option<Expiration>> {
    if table.options().get_bool("write-only", false)? || changelog_decoupled(table)? {
        return Ok(None);
    }
    let config = ExpireConfig::for_table(table, env.now_millis())?;
    expire_snapshots(table, &config).await.map(Some)
}

/// Expires the snapshots `config` lets go (`CALL sys.expire_snapshots`); see the module docs.
pub async fn expire_snapshots(table: &Table, config: &ExpireConfig) -> Result<Expiration> {
    table.ensure_main("expiring snapshots")?;
    config.validate(table)?;
    let Some(latest) = table.latest_snapshot_id().await? else {
        return Ok(Expiration::default());
    };
    let Some(earliest) = table.earliest_snapshot_id().await? else {
        return Ok(Expiration::default());
    };
    let min = (latest - config.retain_max + 1).max(earliest);
    let mut end = latest - config.retain_min + 1;
    if let Some(next) = min_consumer_snapshot(table).await? {
        end = end.min(next);
    }
    end = end.min(earliest.saturating_add(config.max_deletes));
    for id in min..end {
        match table.snapshot(id + 1).await {
            Ok(next) if config.older_than_millis <= next.time_millis => {
                end = id;
                break;
            }
            Ok(_) | Err(Error::NotFound { .. }) => {}
            Err(e) => return Err(e),
        }
    }
    expire_until(table, earliest, end).await
}

/// The smallest `nextSnapshot` of the table's consumers, if any.
async fn min_consumer_snapshot(table: &Table) -> Result<Option<i64>> {
    let dir = join(table.path(), "consumer");
    let listing = match table.store().list_dir(&dir).await {
        Ok(l) => l,
        Err(e) if e.is_not_found() => return Ok(None),
        Err(lakescope_storage::Error::Unsupported { .. }) => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    let mut min: Option<i64> = None;
    for f in &listing.files {
        let is_consumer = f
            .path
            .rsplit('/')
            .next()
            .is_some_and(|n| n.starts_with("consumer-"));
        if !is_consumer {
            continue;
        }
        let bytes = match table.store().get(&f.path).await {
            Ok(b) => b,
            Err(e) if e.is_not_found() => continue,
            Err(e) => return Err(e.into()),
        };
        let json: serde_json::Value = serde_json::from_slice(&bytes)
            .map_err(|e| Error::corrupt(f.path.clone(), format!("invalid consumer JSON: {e}")))?;
        let next = json.get("nextSnapshot").and_then(serde_json::Value::as_i64);
        let next = next.ok_or_else(|| Error::corrupt(f.path.clone(), "no nextSnapshot"))?;
        min = Some(min.map_or(next, |m| m.min(next)));
    }
    Ok(min)
}

/// Deletes a file; a missing one counts as deleted.
async fn delete(table: &Table, key: &str, deleted: &mut Vec<String>) -> Result<()> {
    match table.store().delete(key).await {
        Ok(()) => {}
        Err(e) if e.is_not_found() => return Ok(()),
        Err(e) => return Err(e.into()),
    }
    deleted.push(key.to_string());
    Ok(())
}

/// The existing snapshot `id`, `None` when it is gone.
async fn snapshot_if_exists(table: &Table, id: i64) -> Result<Option<Snapshot>> {
    match table.snapshot(id).await {
        Ok(s) => Ok(Some(s)),
        Err(Error::NotFound { .. }) => Ok(None),
        Err(e) => Err(e),
    }
}

/// Expires the snapshots in `[earliest, end)` (Java's `expireUntil`).
async fn expire_until(table: &Table, earliest: i64, end: i64) -> Result<Expiration> {
    let hint = join(&join(table.path(), "snapshot"), "EARLIEST");
    let mut done = Expiration::default();
    if end <= earliest {
        if table.store().get_opt(&hint).await?.is_none() {
            table
                .store()
                .put(&hint, earliest.to_string().into())
                .await?;
        }
        return Ok(done);
    }
    let mut including_end = Vec::new();
    for id in earliest..=end {
        if let Some(s) = snapshot_if_exists(table, id).await? {
            including_end.push(s);
        }
    }
    let (Some(first), Some(last)) = (including_end.first(), including_end.last()) else {
        return Ok(done);
    };
    let (begin, last_id) = (first.id, last.id);
    let mut tags: Vec<Snapshot> = table
        .tags()
        .await?
        .into_iter()
        .map(|(_, t)| t.snapshot)
        .collect();
    tags.sort_by_key(|s| s.id);

    // Data files deleted in (begin, end], less what the nearest older tag holds.
    let mut kept_by_tag: HashMap<i64, Option<HashSet<FileId>>> = HashMap::new();
    let none = HashSet::new();
    let mut data = Vec::new();
    for s in including_end.iter().filter(|s| s.id != begin) {
        let kept = match tags.iter().rev().find(|t| t.id < s.id) {
            None => &none,
            Some(tag) => {
                let kept = match kept_by_tag.entry(tag.id) {
                    Entry::Occupied(o) => o.into_mut(),
                    // A tag whose files cannot be listed protects by skipping (as Java).
                    Entry::Vacant(v) => v.insert(files::live_files(table, tag).await.ok()),
                };
                match kept {
                    Some(k) => &*k,
                    None => continue,
                }
            }
        };
        data.extend(files::deleted_in_delta(table, s, kept).await?);
    }
    let excluding_end: Vec<&Snapshot> = including_end.iter().filter(|s| s.id != end).collect();
    for s in &excluding_end {
        data.extend(files::added_in_changelog(table, s).await?);
    }
    let mut seen = HashSet::new();
    for key in data.into_iter().filter(|k| seen.insert(k.clone())) {
        delete(table, &key, &mut done.files).await?;
    }

    // The `end` snapshot is gone (another process expired it): stop as Java does.
    if last_id != end {
        return Ok(done);
    }
    let mut skipping: Vec<&Snapshot> = skipping_tags(&tags, begin, end);
    skipping.push(last);
    // Without the full set of what must survive, no metadata is deleted (as Java).
    if let Ok(mut keep) = files::skipping_set(table, &skipping).await {
        let mut metadata = Vec::new();
        for s in &excluding_end {
            metadata.extend(files::unused_metadata(table, s, &mut keep).await?);
        }
        for key in metadata {
            delete(table, &key, &mut done.files).await?;
        }
    }
    let dir = join(table.path(), "snapshot");
    for s in &excluding_end {
        let mut removed = Vec::new();
        delete(
            table,
            &join(&dir, &format!("snapshot-{}", s.id)),
            &mut removed,
        )
        .await?;
        if !removed.is_empty() {
            done.snapshots.push(s.id);
        }
    }
    table.store().put(&hint, end.to_string().into()).await?;
    Ok(done)
}

/// The tags whose files may overlap the expired range `[begin, end)` (Java's
/// `findSkippingTags`): from the last tag at or before `begin` (or the first tag) to the last
/// tag before `end`.
fn skipping_tags(tags: &[Snapshot], begin: i64, end: i64) -> Vec<&Snapshot> {
    let Some(right) = tags.iter().rposition(|t| t.id < end) else {
        return Vec::new();
    };
    let left = tags.iter().rposition(|t| t.id <= begin).unwrap_or(0);
    tags.get(left..=right)
        .map(|s| s.iter().collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn snap(id: i64) -> Snapshot {
        let json = format!(
            r#"{{"version":3,"id":{id},"schemaId":0,"baseManifestList":"b","deltaManifestList":"d","commitUser":"u","commitIdentifier":1,"commitKind":"APPEND","timeMillis":0}}"#
        );
        Snapshot::from_json(json.as_bytes()).unwrap()
    }

    #[test]
    fn skipping_tags_are_those_overlapping_the_range() {
        let tags: Vec<Snapshot> = [2, 4, 7, 9].into_iter().map(snap).collect();
        let ids = |v: Vec<&Snapshot>| v.iter().map(|s| s.id).collect::<Vec<_>>();
        assert_eq!(ids(skipping_tags(&tags, 5, 9)), vec![4, 7]);
        assert_eq!(ids(skipping_tags(&tags, 4, 8)), vec![4, 7]);
        assert_eq!(ids(skipping_tags(&tags, 1, 3)), vec![2]);
        assert!(skipping_tags(&tags, 1, 2).is_empty());
        assert_eq!(ids(skipping_tags(&tags, 10, 12)), vec![9]);
    }
}
