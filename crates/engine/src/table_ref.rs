//! Table names as users type them: `db.table`, `db.table$snapshots`, with optional backquotes.

use std::fmt;
use std::str::FromStr;

/// A table (or one of its system tables) in a catalog.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableRef {
    /// Database name.
    pub database: String,
    /// Table name without the `$system` suffix.
    pub table: String,
    /// System table name after `$` (e.g. `snapshots`), if any.
    pub system: Option<String>,
}

impl FromStr for TableRef {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let cleaned: String = text.trim().chars().filter(|c| *c != '`').collect();
        let (database, rest) = cleaned
            .split_once('.')
            .ok_or_else(|| format!("'{text}' is not of the form <database>.<table>"))?;
        let (table, system) = match rest.split_once('$') {
            Some((t, s)) => (t, Some(s.to_ascii_lowercase())),
            None => (rest, None),
        };
        if database.is_empty() || table.is_empty() || system.as_deref() == Some("") {
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
}
