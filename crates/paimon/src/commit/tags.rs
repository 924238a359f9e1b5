//! Tags and rollback: Paimon's `sys.create_tag`, `sys.delete_tag` and `sys.rollback_to`.
//!
//! Follows Java Paimon 1.x (`TagManager`, `AbstractFileStoreTable.rollbackTo`,
//! `RollbackHelper`) and pypaimon 2.1, which agree on the file layout:
//!
//! * a tag is `tag/tag-<name>` holding the tagged snapshot's JSON; only a tag with a retention
//!   adds `tagCreateTime` (Jackson's `LocalDateTime` array) and `tagTimeRetained` (decimal
//!   seconds), so readers older than 0.8 still read plain tags;
//! * rolling back removes the snapshot files (and long-lived changelog files) newer than the
//!   target, newest first, then the tags of newer snapshots, and points `LATEST` at the
//!   target; rolling back to a tag whose snapshot expired recreates `snapshot-<id>` from the
//!   tag and points `EARLIEST` at it.
//!
//! Unlike Java, data and manifest files that only the removed snapshots referenced are left in
//! place: nothing references them any more, so readers never see them, and Paimon's
//! `CALL sys.remove_orphan_files` deletes them. This keeps a rollback that dies half-way safe
//! to repeat.

use crate::error::{Error, Result};
use crate::spec::snapshot::{Snapshot, Tag};
use crate::table::Table;
use crate::write::WriteEnv;
use lakescope_storage::{join, PutOutcome};
use std::time::Duration;

/// What [`rollback_to`] rolls back to (`snapshot_id` or `tag` of `sys.rollback_to`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RollbackTarget {
    /// A snapshot id; an expired snapshot is found through a tag of it, as in Java.
    Snapshot(i64),
    /// A tag name.
    Tag(String),
}

/// What a rollback changed.
#[derive(Debug, Clone, PartialEq)]
pub struct Rollback {
    /// The snapshot the table is at now.
    pub snapshot: Snapshot,
    /// Ids of the snapshot files removed, descending.
    pub removed_snapshots: Vec<i64>,
    /// Names of the tags removed (their snapshots were newer than the target), sorted.
    pub removed_tags: Vec<String>,
    /// Whether `snapshot-<id>` had expired and was recreated from the tag.
    pub recreated: bool,
}

fn invalid(table: &Table, msg: impl std::fmt::Display) -> Error {
    Error::Invalid(format!("{}: {msg}", table.path()))
}

/// Checks a tag name: Paimon only refuses blank names; lakescope also refuses names that are
/// not a single file-name component (`/`, `\`, `.`, `..`), which would leave `tag/`.
pub fn validate_tag_name(table: &Table, name: &str) -> Result<()> {
    if name.trim().is_empty() {
        return Err(invalid(table, "Tag name shouldn't be blank."));
    }
    if name.contains(['/', '\\']) || name == "." || name == ".." {
        return Err(invalid(
            table,
            format!("tag name '{name}' must be a single path component (no '/', '\\', '.', '..')"),
        ));
    }
    Ok(())
}

fn tag_key(table: &Table, name: &str) -> String {
    join(&join(table.path(), "tag"), &format!("tag-{name}"))
}

fn snapshot_key(table: &Table, id: i64) -> String {
    join(&join(table.path(), "snapshot"), &format!("snapshot-{id}"))
}

/// Paimon's duration syntax (`TimeUtils.parseDuration`): a number and an optional unit
/// (`d`/`day(s)`, `h`/`hour(s)`, `min`/`m`/`minute(s)`, `s`/`sec(s)`/`second(s)`,
/// `ms`/`milli(s)`/`millisecond(s)`, `us`/`micro(s)`/`microsecond(s)`, `ns`/`nano(s)`/
/// `nanosecond(s)`); no unit means milliseconds. E.g. `'1 d'`, `'12h'`, `'30 min'`.
pub fn parse_duration(text: &str) -> Result<Duration> {
    let t = text.trim().to_ascii_lowercase();
    let digits: String = t.chars().take_while(|c| c.is_ascii_digit()).collect();
    let unit = t[digits.len()..].trim();
    let bad = || {
        Error::Invalid(format!(
            "'{text}' is not a duration (e.g. '1 d', '12 h', '30 min')"
        ))
    };
    let n: u64 = digits.parse().map_err(|_| bad())?;
    let d = match unit {
        "d" | "day" | "days" => Duration::from_secs(n.checked_mul(86_400).ok_or_else(bad)?),
        "h" | "hour" | "hours" => Duration::from_secs(n.checked_mul(3_600).ok_or_else(bad)?),
        "min" | "m" | "minute" | "minutes" => {
            Duration::from_secs(n.checked_mul(60).ok_or_else(bad)?)
        }
        "s" | "sec" | "secs" | "second" | "seconds" => Duration::from_secs(n),
        "" | "ms" | "milli" | "millis" | "millisecond" | "milliseconds" => Duration::from_millis(n),
        "us" | "µs" | "micro" | "micros" | "microsecond" | "microseconds" => {
            Duration::from_micros(n)
        }
        "ns" | "nano" | "nanos" | "nanosecond" | "nanoseconds" => Duration::from_nanos(n),
        _ => return Err(bad()),
    };
    Ok(d)
}

/// Jackson's `LocalDateTime` array for epoch `millis` (UTC): `[y, m, d, h, mi]`, then the
/// second when second or nanos are non-zero, then the nanos when non-zero.
fn local_date_time_array(millis: i64) -> serde_json::Value {
    let days = millis.div_euclid(86_400_000);
    let ms_of_day = millis.rem_euclid(86_400_000);
    let (y, m, d) = civil_from_days(days);
    let (h, mi) = (ms_of_day / 3_600_000, ms_of_day / 60_000 % 60);
    let (s, nanos) = (ms_of_day / 1000 % 60, ms_of_day % 1000 * 1_000_000);
    let mut a = vec![y, m, d, h, mi];
    if s != 0 || nanos != 0 {
        a.push(s);
        if nanos != 0 {
            a.push(nanos);
        }
    }
    serde_json::Value::from(a)
}

/// Proleptic Gregorian (year, month, day) of days since 1970-01-01 (H. Hinnant's algorithm).
fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// Jackson's `Duration` as decimal seconds.
fn duration_seconds(d: Duration) -> serde_json::Value {
    serde_json::Value::from(d.as_secs_f64())
}

/// The snapshot `id`, or — when it expired — the snapshot a tag kept of it (Java's
/// `findSnapshot`).
async fn find_snapshot(table: &Table, id: i64) -> Result<Snapshot> {
    match table.snapshot(id).await {
        Ok(s) => return Ok(s),
        Err(Error::NotFound { .. }) => {}
        Err(e) => return Err(e),
    }
    let tags = table.tags().await?;
    tags.into_iter()
        .map(|(_, t)| t.snapshot)
        .find(|s| s.id == id)
        .ok_or_else(|| Error::NotFound {
            what: format!("snapshot {id}"),
            context: Some(format!(
                "{}: cannot create tag because given snapshot #{id} doesn't exist (expired and untagged?)",
                table.path()
            )),
        })
}

/// `CALL sys.create_tag(table, tag, snapshot_id[, time_retained])`: tags `snapshot_id` (the
/// latest snapshot when `None`) as `name`. `time_retained` defaults to the table option
/// `tag.default-time-retained`; with a retention the tag records its creation time (UTC, from
/// `env`). Errors when the name is invalid, the tag exists (the file is created atomically,
/// so of two racing creators one fails), the table has no snapshot, or the snapshot neither
/// exists nor is kept by another tag.
pub async fn create_tag(
    table: &Table,
    name: &str,
    snapshot_id: Option<i64>,
    time_retained: Option<Duration>,
    env: &dyn WriteEnv,
) -> Result<Tag> {
    table.ensure_main("creating a tag")?;
    validate_tag_name(table, name)?;
    let key = tag_key(table, name);
    if table.store().get_opt(&key).await?.is_some() {
        return Err(invalid(table, format!("Tag '{name}' already exists.")));
    }
    let snapshot = match snapshot_id {
        Some(id) => find_snapshot(table, id).await?,
        None => table.latest_snapshot().await?.ok_or_else(|| {
            invalid(
                table,
                "Cannot create tag because latest snapshot doesn't exist.",
            )
        })?,
    };
    let retained = match time_retained {
        Some(d) => Some(d),
        None => table
            .options()
            .get("tag.default-time-retained")
            .map(parse_duration)
            .transpose()?,
    };
    let tag = Tag {
        snapshot,
        tag_create_time: retained.map(|_| local_date_time_array(env.now_millis())),
        tag_time_retained: retained.map(duration_seconds),
    };
    // Without a retention Paimon writes the plain snapshot JSON (readable by Paimon <= 0.7).
    let json = if retained.is_some() {
        serde_json::to_vec_pretty(&tag)
    } else {
        serde_json::to_vec_pretty(&tag.snapshot)
    }
    .map_err(|e| Error::Invalid(format!("{key}: serializing: {e}")))?;
    match table.store().put_if_absent(&key, json.into()).await? {
        PutOutcome::Created => Ok(tag),
        PutOutcome::AlreadyExists => Err(invalid(table, format!("Tag '{name}' already exists."))),
    }
}

/// `CALL sys.delete_tag(table, tag)`: removes `tag/tag-<name>` and returns the tag, or `None`
/// when there was no such tag (Java only logs a warning then). Data files only the tag kept
/// alive stay as orphans (see the module docs).
pub async fn delete_tag(table: &Table, name: &str) -> Result<Option<Tag>> {
    table.ensure_main("deleting a tag")?;
    validate_tag_name(table, name)?;
    let tag = match table.tag(name).await {
        Ok(t) => t,
        Err(Error::NotFound { .. }) => return Ok(None),
        Err(e) => return Err(e),
    };
    table.store().delete(&tag_key(table, name)).await?;
    Ok(Some(tag))
}

/// `CALL sys.rollback_to(table, snapshot_id | tag)`: makes the target the latest snapshot.
/// Snapshot files and long-lived changelogs newer than it are deleted (newest first), then tags
/// of newer snapshots, then `LATEST` is rewritten. A tag whose snapshot expired (or a snapshot
/// id only a tag still keeps) has `snapshot-<id>` recreated from the tag (without the tag
/// fields) and `EARLIEST` set to it. Not safe against concurrent commits, as in Paimon: stop
/// writers first.
pub async fn rollback_to(table: &Table, target: RollbackTarget) -> Result<Rollback> {
    table.ensure_main("rolling back")?;
    let (retained, from_tag) = match &target {
        RollbackTarget::Tag(name) => {
            validate_tag_name(table, name)?;
            let tag = table.tag(name).await.map_err(|e| match e {
                Error::NotFound { .. } => {
                    invalid(table, format!("Rollback tag '{name}' doesn't exist."))
                }
                e => e,
            })?;
            (tag.snapshot, true)
        }
        RollbackTarget::Snapshot(id) => match table.snapshot(*id).await {
            Ok(s) => (s, false),
            Err(Error::NotFound { .. }) => {
                let kept = table
                    .tags()
                    .await?
                    .into_iter()
                    .map(|(_, t)| t.snapshot)
                    .find(|s| s.id == *id);
                match kept {
                    Some(s) => (s, true),
                    None => {
                        return Err(invalid(
                            table,
                            format!("Rollback snapshot '{id}' doesn't exist."),
                        ))
                    }
                }
            }
            Err(e) => return Err(e),
        },
    };
    let id = retained.id;

    let mut removed_snapshots: Vec<i64> = table
        .snapshot_ids()
        .await?
        .into_iter()
        .filter(|s| *s > id)
        .collect();
    removed_snapshots.sort_unstable_by(|a, b| b.cmp(a));
    for s in &removed_snapshots {
        table.store().delete(&snapshot_key(table, *s)).await?;
    }
    remove_changelogs_after(table, id).await?;

    let mut removed_tags = Vec::new();
    for (name, tag) in table.tags().await? {
        if tag.snapshot.id > id {
            table.store().delete(&tag_key(table, &name)).await?;
            removed_tags.push(name);
        }
    }

    let dir = join(table.path(), "snapshot");
    let mut recreated = false;
    if from_tag
        && table
            .store()
            .get_opt(&snapshot_key(table, id))
            .await?
            .is_none()
    {
        let key = snapshot_key(table, id);
        let json = serde_json::to_vec_pretty(&retained)
            .map_err(|e| Error::Invalid(format!("{key}: serializing: {e}")))?;
        // Put-if-absent as Java's `writeFile(..., overwrite = false)`.
        recreated = table.store().put_if_absent(&key, json.into()).await? == PutOutcome::Created;
        table
            .store()
            .put(&join(&dir, "EARLIEST"), id.to_string().into())
            .await?;
    }
    table
        .store()
        .put(&join(&dir, "LATEST"), id.to_string().into())
        .await?;
    Ok(Rollback {
        snapshot: retained,
        removed_snapshots,
        removed_tags,
        recreated,
    })
}

/// Deletes long-lived changelog files (`changelog/changelog-<id>`, tables with
/// `changelog.num-retained.*`) newer than snapshot `id`, and moves their `LATEST` hint.
async fn remove_changelogs_after(table: &Table, id: i64) -> Result<()> {
    let dir = join(table.path(), "changelog");
    let listing = match table.store().list_dir(&dir).await {
        Ok(l) => l,
        Err(e) if e.is_not_found() => return Ok(()),
        Err(e) => return Err(e.into()),
    };
    let mut newer: Vec<i64> = listing
        .files
        .iter()
        .filter_map(|f| f.path.rsplit('/').next())
        .filter_map(|n| n.strip_prefix("changelog-"))
        .filter_map(|n| n.parse::<i64>().ok())
        .filter(|c| *c > id)
        .collect();
    if newer.is_empty() {
        return Ok(());
    }
    newer.sort_unstable_by(|a, b| b.cmp(a));
    for c in &newer {
        table
            .store()
            .delete(&join(&dir, &format!("changelog-{c}")))
            .await?;
    }
    let remaining = listing
        .files
        .iter()
        .filter_map(|f| f.path.rsplit('/').next())
        .filter_map(|n| n.strip_prefix("changelog-"))
        .filter_map(|n| n.parse::<i64>().ok())
        .filter(|c| *c <= id)
        .max();
    match remaining {
        Some(latest) => {
            table
                .store()
                .put(&join(&dir, "LATEST"), latest.to_string().into())
                .await?
        }
        None => table.store().delete(&join(&dir, "LATEST")).await?,
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_follow_paimon_syntax() {
        assert_eq!(parse_duration("1 d").unwrap(), Duration::from_secs(86_400));
        assert_eq!(parse_duration("12h").unwrap(), Duration::from_secs(43_200));
        assert_eq!(
            parse_duration("30 min").unwrap(),
            Duration::from_secs(1_800)
        );
        assert_eq!(
            parse_duration("1500").unwrap(),
            Duration::from_millis(1_500)
        );
        assert!(parse_duration("soon").is_err());
        assert!(parse_duration("1 fortnight").is_err());
    }

    #[test]
    fn create_time_is_jacksons_local_date_time_array() {
        // 2023-11-14T22:13:20Z
        assert_eq!(
            local_date_time_array(1_700_000_000_000),
            serde_json::json!([2023, 11, 14, 22, 13, 20])
        );
        assert_eq!(
            local_date_time_array(1_700_000_000_123),
            serde_json::json!([2023, 11, 14, 22, 13, 20, 123_000_000])
        );
        assert_eq!(
            local_date_time_array(0),
            serde_json::json!([1970, 1, 1, 0, 0])
        );
        assert_eq!(
            local_date_time_array(951_782_400_000),
            serde_json::json!([2000, 2, 29, 0, 0])
        );
    }
}
