//! The version of a table a read names (latest, snapshot, tag, branch, a branch's own snapshot
//! or tag, time, a range): the one type, its text forms, and its resolution for each format (a
//! Paimon snapshot, an Iceberg [`SnapshotSelector`]).

use crate::{Error, Result, TableRef};
use lakescope_iceberg::SnapshotSelector;
use lakescope_paimon::incremental::IncrementalMode;
use lakescope_paimon::spec::Snapshot;
use lakescope_paimon::table::{Table, MAIN_BRANCH};
use std::fmt;
use std::rc::Rc;

/// Which version of a table to read.
///
/// Text forms: [`Version::parse`] reads the names users type (CLI `diff`, the app's Diff
/// pickers); [`Version::from_url_query`] / [`Version::url_query`] are the app's URL form; the CLI's
/// `scan` flags and the SQL session's `/*+ OPTIONS(...) */` hints name one variant each.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Version {
    /// The latest snapshot (Iceberg: the current snapshot).
    #[default]
    Latest,
    /// `scan.snapshot-id`.
    SnapshotId(i64),
    /// `scan.tag-name`.
    Tag(String),
    /// The head of a branch (Paimon `branch/branch-<name>`, an Iceberg branch ref).
    Branch(String),
    /// A snapshot, tag or time of a Paimon branch's own history (`branch/branch-<name>/snapshot`,
    /// `tag`): what `t$branch_<name>` reads at `at`, with that snapshot's schema. Never `main`
    /// (that is `at` itself): see [`Version::on_branch`].
    OnBranch {
        /// The branch (not `main`).
        branch: String,
        /// The snapshot or tag of the branch.
        at: BranchPoint,
    },
    /// `scan.timestamp-millis`: the latest snapshot committed at or before this instant.
    TimestampMillis(i64),
    /// A tag or branch by name, whichever the table has (the CLI `diff`'s bare names): an
    /// Iceberg ref; for Paimon a tag (a Paimon branch is named with `branch:`).
    Ref(String),
    /// `incremental-between`: the changes from `start` (exclusive) to `end` (inclusive), both
    /// snapshot ids or both tag names; see [`lakescope_paimon::incremental`]. Applies to the
    /// table itself and to `$audit_log` (which adds the `rowkind` column).
    IncrementalBetween {
        /// Start snapshot id or tag name (exclusive).
        start: String,
        /// End snapshot id or tag name (inclusive).
        end: String,
        /// `incremental-between-scan-mode`; `None` uses the table option (default `auto`).
        mode: Option<IncrementalMode>,
    },
}

/// A point of a branch's own history ([`Version::OnBranch`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BranchPoint {
    /// The branch's snapshot with this id.
    SnapshotId(i64),
    /// The branch's tag with this name.
    Tag(String),
    /// The branch's latest snapshot committed at or before this instant (ms), as Java's
    /// `TimeTravelUtil` resolves `scan.timestamp-millis` on a branch table: against the
    /// branch's own snapshots.
    TimestampMillis(i64),
}

/// The URL query keys of a version, in the order [`Version::from_url_query`] tries them.
const URL_KEYS: [&str; 4] = ["snapshot", "tag", "branch", "ts"];

impl Version {
    /// `at` on branch `branch`: [`Version::OnBranch`] for a snapshot id, tag or time, `at`
    /// itself on `main`; any other version of a branch is an error (its head is
    /// [`Version::Branch`]).
    pub fn on_branch(branch: &str, at: Version) -> Result<Version> {
        if branch == MAIN_BRANCH {
            return Ok(at);
        }
        let at = match at {
            Version::SnapshotId(id) => BranchPoint::SnapshotId(id),
            Version::Tag(name) => BranchPoint::Tag(name),
            Version::TimestampMillis(ms) => BranchPoint::TimestampMillis(ms),
            other => {
                return Err(Error::Invalid(format!(
                    "{other} of branch '{branch}': a branch's own version is a snapshot id, a tag or a time"
                )))
            }
        };
        Ok(Version::OnBranch {
            branch: branch.to_string(),
            at,
        })
    }

    /// The branch this version reads: that of [`Version::Branch`] and [`Version::OnBranch`].
    pub fn branch(&self) -> Option<&str> {
        match self {
            Version::Branch(b) | Version::OnBranch { branch: b, .. } => Some(b),
            _ => None,
        }
    }

    /// A version as users name one: `latest`, a snapshot id, `tag:<name>`, `branch:<name>`,
    /// a branch's own snapshot or tag `branch:<name>/<id>`, `branch:<name>/tag:<tag>` (a branch
    /// name has no `/`), or a bare name ([`Version::Ref`]: a tag or branch, whichever the table
    /// has).
    pub fn parse(text: &str) -> Result<Version> {
        if text == "latest" {
            return Ok(Version::Latest);
        }
        if let Ok(id) = text.parse::<i64>() {
            return Ok(Version::SnapshotId(id));
        }
        let named = |kind: &str, name: &str| {
            if name.is_empty() {
                Err(Error::Invalid(format!("'{text}' names no {kind}")))
            } else {
                Ok(name.to_string())
            }
        };
        if let Some(tag) = text.strip_prefix("tag:") {
            return Ok(Version::Tag(named("tag", tag)?));
        }
        if let Some(branch) = text.strip_prefix("branch:") {
            return match branch.split_once('/') {
                Some((branch, at)) => match Version::parse(at)? {
                    at @ (Version::SnapshotId(_) | Version::Tag(_)) => {
                        Version::on_branch(&named("branch", branch)?, at)
                    }
                    _ => Err(Error::Invalid(format!(
                        "'{text}': after 'branch:<name>/' comes a snapshot id or tag:<name>"
                    ))),
                },
                None => Ok(Version::Branch(named("branch", branch)?)),
            };
        }
        if text.is_empty() || text.contains(char::is_whitespace) {
            return Err(Error::Invalid(format!(
                "'{text}' is not a version: use a snapshot id, tag:<name>, branch:<name> or latest"
            )));
        }
        Ok(Version::Ref(text.to_string()))
    }

    /// The name [`Version::parse`] reads back as this version (`None`: a time (on a branch too)
    /// or range, which have no typed name).
    pub fn typed_name(&self) -> Option<String> {
        Some(match self {
            Version::Latest => "latest".to_string(),
            Version::SnapshotId(id) => id.to_string(),
            Version::Tag(t) => format!("tag:{t}"),
            Version::Branch(b) => format!("branch:{b}"),
            Version::OnBranch { branch, at } => match at {
                BranchPoint::SnapshotId(id) => format!("branch:{branch}/{id}"),
                BranchPoint::Tag(t) => format!("branch:{branch}/tag:{t}"),
                BranchPoint::TimestampMillis(_) => return None,
            },
            Version::Ref(name) => name.clone(),
            Version::TimestampMillis(_) | Version::IncrementalBetween { .. } => return None,
        })
    }

    /// One side of a diff as users name it: `""` or `"0"` is the empty table (`None`), anything
    /// else as [`Version::parse`].
    pub fn parse_diff_side(text: &str) -> Result<Option<Version>> {
        if text.is_empty() || text == "0" {
            return Ok(None);
        }
        Version::parse(text).map(Some)
    }

    /// `incremental-between` as `start,end` (each trimmed); `None` without the comma.
    pub fn incremental_between(text: &str, mode: Option<IncrementalMode>) -> Option<Version> {
        let (start, end) = text.split_once(',')?;
        Some(Version::IncrementalBetween {
            start: start.trim().to_string(),
            end: end.trim().to_string(),
            mode,
        })
    }

    /// `incremental-between` as users type it: `start,end` and the scan mode's name if given
    /// (`auto`, `delta`, `changelog` or `diff`, as the table option
    /// `incremental-between-scan-mode`); `Ok(None)` without the comma, an error naming an
    /// unknown mode.
    pub fn parse_incremental_between(text: &str, mode: Option<&str>) -> Result<Option<Version>> {
        let mode = mode.map(IncrementalMode::parse).transpose()?;
        Ok(Version::incremental_between(text, mode))
    }

    /// The version of the app's URL query: the first of `snapshot=<id>`, `tag=<name>`,
    /// `branch=<name>`, `ts=<ms>` that `get` has (blank and unparsable values skipped), else
    /// [`Version::Latest`]; a snapshot, tag or time with a branch is the branch's own
    /// ([`Version::OnBranch`]).
    pub fn from_url_query(get: impl Fn(&str) -> Option<String>) -> Version {
        let get = |key: &str| get(key).filter(|v| !v.trim().is_empty());
        let point = get(URL_KEYS[0])
            .and_then(|id| id.parse().ok())
            .map(Version::SnapshotId)
            .or_else(|| get(URL_KEYS[1]).map(Version::Tag))
            .or_else(|| {
                get(URL_KEYS[3])
                    .and_then(|ms| ms.parse().ok())
                    .map(Version::TimestampMillis)
            });
        match (get(URL_KEYS[2]), point) {
            // `on_branch` takes a snapshot id, tag or time, which `point` is
            (Some(branch), Some(at)) => Version::on_branch(&branch, at.clone()).unwrap_or(at),
            (None, Some(at)) => at,
            (Some(branch), None) => Version::Branch(branch),
            (None, None) => Version::Latest,
        }
    }

    /// The URL query pairs of this version (none: [`Version::Latest`], the URL's default).
    /// A bare [`Version::Ref`] and an incremental range have no URL form: the app reads at a
    /// point it names exactly, so they are an error.
    pub fn url_query(&self) -> Result<Vec<(&'static str, String)>> {
        Ok(match self {
            Version::Latest => Vec::new(),
            Version::SnapshotId(id) => vec![(URL_KEYS[0], id.to_string())],
            Version::Tag(t) => vec![(URL_KEYS[1], t.clone())],
            Version::Branch(b) => vec![(URL_KEYS[2], b.clone())],
            Version::OnBranch { branch, at } => vec![
                (URL_KEYS[2], branch.clone()),
                match at {
                    BranchPoint::SnapshotId(id) => (URL_KEYS[0], id.to_string()),
                    BranchPoint::Tag(t) => (URL_KEYS[1], t.clone()),
                    BranchPoint::TimestampMillis(ms) => (URL_KEYS[3], ms.to_string()),
                },
            ],
            Version::TimestampMillis(ms) => vec![(URL_KEYS[3], ms.to_string())],
            Version::Ref(_) | Version::IncrementalBetween { .. } => {
                return Err(Error::Invalid(format!("{self} has no URL form")))
            }
        })
    }

    /// Whether a read at this version uses the table's latest schema (Java's rule: without time
    /// travel, a branch's head too) rather than the schema of the snapshot read.
    pub fn reads_latest_schema(&self) -> bool {
        matches!(self, Version::Latest | Version::Branch(_))
    }
}

/// How the version reads in messages: `latest`, `snapshot 3`, `tag 't1'`, `branch 'dev'`,
/// `snapshot 1 of branch 'dev'`, `timestamp 1700000000000`, `'name'`, `incremental-between 1,3`.
impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Version::Latest => write!(f, "latest"),
            Version::SnapshotId(id) => write!(f, "snapshot {id}"),
            Version::Tag(t) => write!(f, "tag '{t}'"),
            Version::Branch(b) => write!(f, "branch '{b}'"),
            Version::OnBranch { branch, at } => match at {
                BranchPoint::SnapshotId(id) => write!(f, "snapshot {id} of branch '{branch}'"),
                BranchPoint::Tag(t) => write!(f, "tag '{t}' of branch '{branch}'"),
                BranchPoint::TimestampMillis(ms) => {
                    write!(f, "timestamp {ms} of branch '{branch}'")
                }
            },
            Version::TimestampMillis(ms) => write!(f, "timestamp {ms}"),
            Version::Ref(n) => write!(f, "'{n}'"),
            Version::IncrementalBetween { start, end, .. } => {
                write!(f, "incremental-between {start},{end}")
            }
        }
    }
}

/// The branch a read names, by `t$branch_<name>` or the version ([`Version::branch`])
/// (`None`: `main`); two different names are an error.
pub fn read_branch<'a>(table_ref: &'a TableRef, at: &'a Version) -> Result<Option<&'a str>> {
    match (table_ref.branch(), at.branch()) {
        (Some(a), Some(b)) if a != b => Err(Error::Invalid(format!(
            "{table_ref} names branch '{a}' but the read asks for branch '{b}': name one branch"
        ))),
        (Some(a), _) => Ok(Some(a)),
        (None, b) => Ok(b),
    }
    .map(|b| b.filter(|b| *b != MAIN_BRANCH))
}

/// The snapshot of a Paimon table a point-in-time read at `at` sees (`None`: a table without
/// snapshots, read as empty); `table_ref` names the table in errors. `table` is the handle of
/// the branch read (see [`read_branch`]; a version naming another branch is an error):
/// [`Version::Latest`] and [`Version::Branch`] are its head; a [`Version::Ref`] is a tag.
pub async fn paimon_snapshot(
    table: &Table,
    table_ref: &dyn fmt::Display,
    at: &Version,
) -> Result<Option<Snapshot>> {
    if let Some(branch) = at.branch().filter(|b| *b != table.branch_name()) {
        return Err(Error::Invalid(format!(
            "{table_ref}: {at} is read on branch '{branch}', not on branch '{}'",
            table.branch_name()
        )));
    }
    Ok(match at {
        Version::Latest | Version::Branch(_) => table.latest_snapshot().await?,
        Version::SnapshotId(id)
        | Version::OnBranch {
            at: BranchPoint::SnapshotId(id),
            ..
        } => Some(table.snapshot(*id).await?),
        Version::Tag(name)
        | Version::Ref(name)
        | Version::OnBranch {
            at: BranchPoint::Tag(name),
            ..
        } => Some(table.tag(name).await?.snapshot),
        Version::TimestampMillis(ms)
        | Version::OnBranch {
            at: BranchPoint::TimestampMillis(ms),
            ..
        } => Some(
            table
                .snapshot_at_or_before_timestamp(*ms)
                .await?
                .ok_or_else(|| {
                    let on = match table.branch_name() {
                        MAIN_BRANCH => String::new(),
                        branch => format!(" on branch '{branch}'"),
                    };
                    Error::Invalid(format!(
                        "{table_ref} has no snapshot{on} committed at or before {ms} ms"
                    ))
                })?,
        ),
        Version::IncrementalBetween { .. } => {
            return Err(Error::Invalid(format!(
                "{table_ref}: incremental-between is not a single snapshot"
            )))
        }
    })
}

/// A diff of a Paimon table, resolved: the handle that reads both sides and their snapshots.
pub struct PaimonDiff {
    /// The branch whose schemas read both sides (manifests and data files are the table's,
    /// shared by its branches).
    pub table: Rc<Table>,
    /// The snapshot diffed from (`None`: the empty table).
    pub from: Option<Snapshot>,
    /// The snapshot diffed to.
    pub to: Snapshot,
}

/// Resolves the sides of a diff of `table` (its `main` handle), `from` (`None`: the empty table)
/// to `to`: each on its branch ([`Version::branch`]: a branch's head or its own snapshot or tag).
/// A data file is read with the schema its id names in the branch that reads both sides, so
/// sides on two branches are diffed only while every schema id both branches have is the same
/// schema (as a branch made from a tag copies them), through the branch that has every schema
/// of the other (`to`'s if both); otherwise the diff is refused, naming the schema.
pub async fn paimon_diff(
    table: &Rc<Table>,
    from: Option<&Version>,
    to: &Version,
) -> Result<PaimonDiff> {
    let to_table = branch_of(table, to.branch()).await?;
    let from_table = match from {
        Some(side) if side.branch() != to.branch() => branch_of(table, side.branch()).await?,
        _ => to_table.clone(),
    };
    let name = |t: &Table| format!("branch '{}' of Paimon table {}", t.branch_name(), t.path());
    let to_snapshot = paimon_snapshot(&to_table, &name(&to_table), to)
        .await?
        .ok_or_else(|| Error::Invalid(format!("{}: {to} has no snapshot", name(&to_table))))?;
    let from_snapshot = match from {
        Some(side) => paimon_snapshot(&from_table, &name(&from_table), side).await?,
        None => None,
    };
    let reader = match from_snapshot {
        Some(_) if !Rc::ptr_eq(&from_table, &to_table) => {
            common_schemas(table.path(), &from_table, &to_table).await?
        }
        _ => to_table,
    };
    Ok(PaimonDiff {
        table: reader,
        from: from_snapshot,
        to: to_snapshot,
    })
}

/// Of two branches of the table at `path`, the one that reads the files of both: schemas with
/// the same id must be the same, and it must have every schema of the other (`b` if both do).
async fn common_schemas(path: &str, a: &Rc<Table>, b: &Rc<Table>) -> Result<Rc<Table>> {
    let (mine, theirs) = (a.schemas().await?, b.schemas().await?);
    let refuse = |what: String| {
        Error::Invalid(format!(
            "Paimon table {path}: cannot diff branch '{}' with branch '{}': {what}, so their files cannot be read with one branch's schemas",
            a.branch_name(),
            b.branch_name()
        ))
    };
    for schema in &mine {
        if let Some(other) = theirs.iter().find(|s| s.id == schema.id) {
            if other != schema {
                return Err(refuse(format!(
                    "their schema {} differs (each branch evolved its schema)",
                    schema.id
                )));
            }
        }
    }
    let lacks = |t: &[Rc<lakescope_paimon::spec::TableSchema>],
                 of: &[Rc<lakescope_paimon::spec::TableSchema>]| {
        of.iter()
            .find(|s| !t.iter().any(|x| x.id == s.id))
            .map(|s| s.id)
    };
    match (lacks(&theirs, &mine), lacks(&mine, &theirs)) {
        (None, _) => Ok(b.clone()),
        (Some(_), None) => Ok(a.clone()),
        (Some(x), Some(y)) => Err(refuse(format!(
            "branch '{}' has schema {x} that branch '{}' lacks, and branch '{}' schema {y} that branch '{}' lacks",
            a.branch_name(),
            b.branch_name(),
            b.branch_name(),
            a.branch_name()
        ))),
    }
}

/// The handle of `branch` (`None`: `table`'s own) of `table`.
async fn branch_of(table: &Rc<Table>, branch: Option<&str>) -> Result<Rc<Table>> {
    Ok(match branch.filter(|b| *b != table.branch_name()) {
        Some(b) => Rc::new(table.branch(b).await?),
        None => table.clone(),
    })
}

/// The Iceberg snapshot a read at `at` selects: a tag (`scan.tag-name`, Flink's `tag`) as a
/// tag, a branch (`t$branch_dev`, [`Version::Branch`], Flink's `branch`) as a branch, a bare
/// name as whichever ref it is, each read with the schema Java gives it
/// ([`lakescope_iceberg::Table::read_schema_at`]). A snapshot id, time, tag or ref is one
/// snapshot of the whole table, so it does not combine with a branch.
pub fn iceberg_selector(table_ref: &TableRef, at: &Version) -> Result<SnapshotSelector> {
    let branch = read_branch(table_ref, at)?;
    Ok(match (at, branch) {
        (Version::Latest | Version::Branch(_), Some(b)) => SnapshotSelector::Branch(b.into()),
        (Version::Branch(_), None) => SnapshotSelector::Branch(MAIN_BRANCH.into()),
        (Version::Latest, None) => SnapshotSelector::Current,
        (Version::SnapshotId(id), None) => SnapshotSelector::Id(*id),
        (Version::Tag(name), None) => SnapshotSelector::Tag(name.clone()),
        (Version::Ref(name), None) => SnapshotSelector::Ref(name.clone()),
        (Version::TimestampMillis(ms), None) => SnapshotSelector::AsOfTimestamp(*ms),
        (Version::OnBranch { .. }, _) => {
            return Err(Error::Invalid(format!(
                "{table_ref}: {at}: an Iceberg branch has no snapshots, tags or times of its own (a snapshot id, tag or time names one snapshot of the whole table)"
            )))
        }
        (Version::IncrementalBetween { .. }, _) => {
            return Err(Error::Invalid(format!(
                "{table_ref}: incremental-between is not supported for Iceberg tables yet"
            )))
        }
        (other, Some(b)) => {
            return Err(Error::Invalid(format!(
                "{table_ref}: branch '{b}' and {other} both select the Iceberg snapshot to read: keep one (a snapshot id, time or tag names one snapshot of the whole table)"
            )))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_names_parse_to_one_version_each() {
        let cases = [
            ("latest", Version::Latest),
            ("3", Version::SnapshotId(3)),
            ("-1", Version::SnapshotId(-1)),
            (
                "8270633197658268000",
                Version::SnapshotId(8270633197658268000),
            ),
            ("tag:t1", Version::Tag("t1".into())),
            ("tag:a:b", Version::Tag("a:b".into())),
            ("branch:dev", Version::Branch("dev".into())),
            ("branch:main", Version::Branch("main".into())),
            ("t1", Version::Ref("t1".into())),
            ("main", Version::Ref("main".into())),
            (
                "branch:dev/1",
                Version::OnBranch {
                    branch: "dev".into(),
                    at: BranchPoint::SnapshotId(1),
                },
            ),
            (
                "branch:dev/tag:d/2",
                Version::OnBranch {
                    branch: "dev".into(),
                    at: BranchPoint::Tag("d/2".into()),
                },
            ),
            ("branch:main/3", Version::SnapshotId(3)),
        ];
        for (text, want) in cases {
            assert_eq!(Version::parse(text).unwrap(), want, "{text}");
            let name = want.typed_name().unwrap();
            assert_eq!(Version::parse(&name).unwrap(), want, "{name}");
        }
        assert_eq!(Version::TimestampMillis(1).typed_name(), None);
        for bad in [
            "",
            "tag:",
            "branch:",
            "a b",
            "branch:/1",
            "branch:dev/",
            "branch:dev/latest",
            "branch:dev/d2",
            "branch:dev/branch:x",
        ] {
            assert!(Version::parse(bad).is_err(), "{bad}");
        }
        assert_eq!(
            Version::parse("tag:").unwrap_err().to_string(),
            "'tag:' names no tag"
        );
        assert_eq!(
            Version::parse("branch:dev/d2").unwrap_err().to_string(),
            "'branch:dev/d2': after 'branch:<name>/' comes a snapshot id or tag:<name>"
        );
        assert_eq!(
            Version::parse("branch:dev/1").unwrap().to_string(),
            "snapshot 1 of branch 'dev'"
        );
    }

    #[test]
    fn a_branch_s_own_version_is_a_snapshot_tag_or_time() {
        let on = |at| Version::on_branch("dev", at);
        assert_eq!(
            on(Version::Tag("d2".into())).unwrap(),
            Version::OnBranch {
                branch: "dev".into(),
                at: BranchPoint::Tag("d2".into())
            }
        );
        assert_eq!(
            Version::on_branch("main", Version::SnapshotId(2)).unwrap(),
            Version::SnapshotId(2)
        );
        assert_eq!(
            on(Version::Latest).unwrap_err().to_string(),
            "latest of branch 'dev': a branch's own version is a snapshot id, a tag or a time"
        );
        let at_time = on(Version::TimestampMillis(1)).unwrap();
        assert_eq!(at_time.to_string(), "timestamp 1 of branch 'dev'");
        assert_eq!(at_time.typed_name(), None);
        assert!(!at_time.reads_latest_schema());
        assert_eq!(on(Version::SnapshotId(1)).unwrap().branch(), Some("dev"));
        assert_eq!(Version::Branch("b".into()).branch(), Some("b"));
        assert_eq!(Version::SnapshotId(1).branch(), None);
        assert!(!on(Version::SnapshotId(1)).unwrap().reads_latest_schema());
    }

    #[test]
    fn a_diff_side_of_zero_or_nothing_is_the_empty_table() {
        assert_eq!(Version::parse_diff_side("").unwrap(), None);
        assert_eq!(Version::parse_diff_side("0").unwrap(), None);
        assert_eq!(
            Version::parse_diff_side("2").unwrap(),
            Some(Version::SnapshotId(2))
        );
        assert_eq!(
            Version::parse_diff_side("tag:t").unwrap(),
            Some(Version::Tag("t".into()))
        );
    }

    #[test]
    fn incremental_between_needs_start_and_end() {
        assert_eq!(
            Version::incremental_between(" 1 , t2 ", Some(IncrementalMode::Delta)),
            Some(Version::IncrementalBetween {
                start: "1".into(),
                end: "t2".into(),
                mode: Some(IncrementalMode::Delta)
            })
        );
        assert_eq!(Version::incremental_between("5", None), None);
    }

    fn query(pairs: &[(&str, &str)]) -> Version {
        Version::from_url_query(|k| {
            pairs
                .iter()
                .find(|(key, _)| *key == k)
                .map(|(_, v)| v.to_string())
        })
    }

    #[test]
    fn url_query_round_trips_and_keeps_its_precedence() {
        let cases = [
            (&[][..], Version::Latest),
            (&[("snapshot", "4")][..], Version::SnapshotId(4)),
            (&[("tag", "t1")][..], Version::Tag("t1".into())),
            (&[("branch", "dev")][..], Version::Branch("dev".into())),
            (&[("ts", "1700")][..], Version::TimestampMillis(1700)),
            // snapshot before tag before ts (each on the branch when one is given); blank or
            // unparsable values skipped
            (
                &[("tag", "t1"), ("snapshot", "4")][..],
                Version::SnapshotId(4),
            ),
            // a snapshot or tag with a branch is the branch's own (`main`'s: the plain one)
            (
                &[("branch", "b"), ("tag", "t")][..],
                Version::OnBranch {
                    branch: "b".into(),
                    at: BranchPoint::Tag("t".into()),
                },
            ),
            (
                &[("branch", "b"), ("snapshot", "1"), ("tag", "t")][..],
                Version::OnBranch {
                    branch: "b".into(),
                    at: BranchPoint::SnapshotId(1),
                },
            ),
            (
                &[("branch", "main"), ("snapshot", "1")][..],
                Version::SnapshotId(1),
            ),
            (
                &[("branch", "b"), ("snapshot", "x")][..],
                Version::Branch("b".into()),
            ),
            // a time with a branch is on the branch's own snapshots
            (
                &[("ts", "9"), ("branch", "b")][..],
                Version::OnBranch {
                    branch: "b".into(),
                    at: BranchPoint::TimestampMillis(9),
                },
            ),
            (
                &[("ts", "9"), ("branch", "b"), ("tag", "t")][..],
                Version::OnBranch {
                    branch: "b".into(),
                    at: BranchPoint::Tag("t".into()),
                },
            ),
            (
                &[("snapshot", "x"), ("tag", "t")][..],
                Version::Tag("t".into()),
            ),
            (
                &[("tag", " "), ("ts", "5")][..],
                Version::TimestampMillis(5),
            ),
            (&[("ts", "soon")][..], Version::Latest),
        ];
        for (pairs, want) in cases {
            assert_eq!(query(pairs), want, "{pairs:?}");
            let pairs = want.url_query().unwrap();
            let pairs: Vec<_> = pairs.iter().map(|(k, v)| (*k, v.as_str())).collect();
            assert_eq!(query(&pairs), want);
        }
        assert!(Version::Ref("x".into()).url_query().is_err());
    }

    #[test]
    fn branches_come_from_the_name_or_the_version_but_not_two() {
        let t: TableRef = "db.t".parse().unwrap();
        let dev: TableRef = "db.t$branch_dev".parse().unwrap();
        let main: TableRef = "db.t$branch_main".parse().unwrap();
        let branch = |b: &str| Version::Branch(b.into());
        assert_eq!(read_branch(&t, &Version::Latest).unwrap(), None);
        assert_eq!(read_branch(&t, &branch("dev")).unwrap(), Some("dev"));
        assert_eq!(read_branch(&t, &branch("main")).unwrap(), None);
        assert_eq!(
            read_branch(&dev, &Version::SnapshotId(1)).unwrap(),
            Some("dev")
        );
        assert_eq!(read_branch(&dev, &branch("dev")).unwrap(), Some("dev"));
        assert_eq!(read_branch(&main, &Version::Latest).unwrap(), None);
        let dev_1 = Version::parse("branch:dev/1").unwrap();
        assert_eq!(read_branch(&t, &dev_1).unwrap(), Some("dev"));
        assert_eq!(read_branch(&dev, &dev_1).unwrap(), Some("dev"));
        assert!(read_branch(&main, &dev_1).is_err());
        assert_eq!(
            read_branch(&dev, &branch("x")).unwrap_err().to_string(),
            "db.t$branch_dev names branch 'dev' but the read asks for branch 'x': name one branch"
        );
    }

    #[test]
    fn iceberg_selectors_per_version() {
        let t: TableRef = "db.t".parse().unwrap();
        let dev: TableRef = "db.t$branch_dev".parse().unwrap();
        let cases = [
            (&t, Version::Latest, SnapshotSelector::Current),
            (&t, Version::SnapshotId(7), SnapshotSelector::Id(7)),
            (
                &t,
                Version::Tag("t1".into()),
                SnapshotSelector::Tag("t1".into()),
            ),
            (
                &t,
                Version::Ref("x".into()),
                SnapshotSelector::Ref("x".into()),
            ),
            (
                &t,
                Version::TimestampMillis(9),
                SnapshotSelector::AsOfTimestamp(9),
            ),
            (
                &t,
                Version::Branch("dev".into()),
                SnapshotSelector::Branch("dev".into()),
            ),
            (
                &t,
                Version::Branch("main".into()),
                SnapshotSelector::Branch("main".into()),
            ),
            (
                &dev,
                Version::Latest,
                SnapshotSelector::Branch("dev".into()),
            ),
        ];
        for (table_ref, at, want) in cases {
            assert_eq!(iceberg_selector(table_ref, &at).unwrap(), want, "{at:?}");
        }
        assert_eq!(
            iceberg_selector(&dev, &Version::SnapshotId(7)).unwrap_err().to_string(),
            "db.t$branch_dev: branch 'dev' and snapshot 7 both select the Iceberg snapshot to read: keep one (a snapshot id, time or tag names one snapshot of the whole table)"
        );
        assert!(iceberg_selector(&t, &Version::incremental_between("1,2", None).unwrap()).is_err());
        assert_eq!(
            iceberg_selector(&t, &Version::parse("branch:dev/tag:t1").unwrap()).unwrap_err().to_string(),
            "db.t: tag 't1' of branch 'dev': an Iceberg branch has no snapshots, tags or times of its own (a snapshot id, tag or time names one snapshot of the whole table)"
        );
    }
}
