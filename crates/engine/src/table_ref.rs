//! Table names as users type them: `db.table`, `db.table$snapshots`, with optional backquotes,
//! and Paimon's branch spelling `db.table$branch_dev` (`db.table$branch_dev$snapshots` for a
//! branch's system table).

use std::fmt;
use std::str::FromStr;

/// A table (or one of its system tables) in a catalog.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TableRef {
    /// Database name.
    pub database: String,
    /// Table name without the `$system` suffix.
    pub table: String,
    /// Everything after the first `$`, if any: a system table (`snapshots`), a branch
    /// (`branch_dev`) or a branch's system table (`branch_dev$snapshots`); see
    /// [`TableRef::branch`] and [`TableRef::system_table`].
    pub system: Option<String>,
}

/// The prefix that makes `t$branch_<name>` name a branch (Paimon's `SYSTEM_BRANCH_PREFIX`).
pub const BRANCH_PREFIX: &str = "branch_";

/// `(branch, system table)` of the text after a table name's first `$`: `branch_dev` →
/// (`dev`, none), `branch_dev$snapshots` → (`dev`, `snapshots`), `snapshots` → (none,
/// `snapshots`), as Paimon's `Identifier.splitObjectName`.
pub fn split_suffix(suffix: &str) -> (Option<&str>, Option<&str>) {
    let (first, rest) = match suffix.split_once('$') {
        Some((a, b)) => (a, Some(b)),
        None => (suffix, None),
    };
    match first
        .get(..BRANCH_PREFIX.len())
        .filter(|p| p.eq_ignore_ascii_case(BRANCH_PREFIX))
    {
        Some(_) => (Some(&first[BRANCH_PREFIX.len()..]), rest),
        None => (None, Some(suffix)),
    }
}

/// The suffix after `$` (lower case but for the branch name, which keeps its case).
pub fn normalize_suffix(suffix: &str) -> String {
    match split_suffix(suffix) {
        (Some(b), None) => format!("{BRANCH_PREFIX}{b}"),
        (Some(b), Some(s)) => format!("{BRANCH_PREFIX}{b}${}", s.to_ascii_lowercase()),
        (None, _) => suffix.to_ascii_lowercase(),
    }
}

impl FromStr for TableRef {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let cleaned: String = text.trim().chars().filter(|c| *c != '`').collect();
        let (database, rest) = cleaned
            .split_once('.')
            .ok_or_else(|| format!("'{text}' is not of the form <database>.<table>"))?;
        let (table, system) = match rest.split_once('$') {
            Some((t, s)) => (t, Some(normalize_suffix(s))),
            None => (rest, None),
        };
        let empty_part = system.as_deref().is_some_and(|s| {
            let (branch, system) = split_suffix(s);
            s.is_empty() || branch == Some("") || system == Some("")
        });
        if database.is_empty() || table.is_empty() || empty_part {
            return Err(format!(
                "'{text}' is not of the form <database>.<table>[$<system table>]"
            ));
        }
        Ok(Self {
            database: database.to_string(),
            table: table.to_string(),
            system,
        })
    }
}

impl fmt::Display for TableRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.database, self.table)?;
        if let Some(s) = &self.system {
            write!(f, "${s}")?;
        }
        Ok(())
    }
}

impl TableRef {
    /// Key of the table folder relative to the warehouse root.
    pub fn path(&self) -> String {
        format!("{}.db/{}", self.database, self.table)
    }

    /// The branch named by `t$branch_<name>` (`None`: the table itself, `main`).
    pub fn branch(&self) -> Option<&str> {
        self.system.as_deref().and_then(|s| split_suffix(s).0)
    }

    /// The system table named (`snapshots` of `t$snapshots` or `t$branch_dev$snapshots`).
    pub fn system_table(&self) -> Option<&str> {
        self.system.as_deref().and_then(|s| split_suffix(s).1)
    }

    /// This reference on branch `branch` (`main`: the table itself), keeping its system table.
    pub fn on_branch(&self, branch: &str) -> TableRef {
        let system = self.system_table();
        let suffix = match (branch, system) {
            ("main", None) => None,
            ("main", Some(s)) => Some(s.to_string()),
            (b, None) => Some(format!("{BRANCH_PREFIX}{b}")),
            (b, Some(s)) => Some(format!("{BRANCH_PREFIX}{b}${s}")),
        };
        TableRef {
            database: self.database.clone(),
            table: self.table.clone(),
            system: suffix,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_names() {
        let t: TableRef = "db.t$Snapshots".parse().unwrap();
        assert_eq!(t.system.as_deref(), Some("snapshots"));
        assert_eq!(t.path(), "db.db/t");
        let q: TableRef = "`db`.`t$audit_log`".parse().unwrap();
        assert_eq!(q.to_string(), "db.t$audit_log");
        assert!("nodot".parse::<TableRef>().is_err());
        assert!("db.".parse::<TableRef>().is_err());
        assert!("db.t$".parse::<TableRef>().is_err());
    }

    #[test]
    fn parses_branches() {
        let b: TableRef = "db.t$branch_Dev".parse().unwrap();
        assert_eq!(b.branch(), Some("Dev"));
        assert_eq!(b.system_table(), None);
        assert_eq!(b.to_string(), "db.t$branch_Dev");
        let s: TableRef = "db.t$branch_dev$Snapshots".parse().unwrap();
        assert_eq!(
            (s.branch(), s.system_table()),
            (Some("dev"), Some("snapshots"))
        );
        let plain: TableRef = "db.t$snapshots".parse().unwrap();
        assert_eq!(
            (plain.branch(), plain.system_table()),
            (None, Some("snapshots"))
        );
        assert_eq!(
            plain.on_branch("dev").to_string(),
            "db.t$branch_dev$snapshots"
        );
        assert_eq!(s.on_branch("main").to_string(), "db.t$snapshots");
        // `$branches` is a system table, not a branch named "es"
        let branches: TableRef = "db.t$branches".parse().unwrap();
        assert_eq!(branches.system_table(), Some("branches"));
        assert!("db.t$branch_".parse::<TableRef>().is_err());
        assert!("db.t$branch_dev$".parse::<TableRef>().is_err());
    }
}
