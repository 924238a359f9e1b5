//! Corpus tables embedded at build time, loaded into an in-memory warehouse for browser tests.

use arrow_array::{Array, RecordBatch};
use arrow_cast::display::{ArrayFormatter, FormatOptions};
use lakescope_storage::MemoryStore;

mod corpus {
    include!(concat!(env!("OUT_DIR"), "/corpus.rs"));
}

pub use corpus::{EXPECTED, JAVA_PROBLEM, JAVA_SYSTEM, MODERN, MODERN_PROBLEM, MODERN_TABLES};

/// One table of the modern corpus (issue 25): the warehouse pypaimon 2.1 wrote for a feature of
/// `crates/paimon/tests/modern/gen_modern.py` (`m.<feature>`), with pypaimon's own reads of it.
pub struct ModernTable {
    /// The generator's feature, also the table's name in database `m`.
    pub feature: &'static str,
    /// The folder pypaimon wrote the warehouse in (`file:///…`): absolute paths in its metadata
    /// (external data paths) below it are keys of [`ModernTable::warehouse`].
    pub root_uri: &'static str,
    /// The warehouse's files (keys relative to it).
    pub files: &'static [(&'static str, &'static [u8])],
    /// pypaimon's rows of the latest snapshot, one `a|b` line each, or `!! <error>`.
    pub pypaimon_latest: &'static str,
    /// `snapshots.json`: pypaimon's sorted rows per snapshot id (a table, not a system table).
    pub snapshots: Option<&'static str>,
    /// `refs.json`: pypaimon's sorted rows per tag and branch (`modern_refs`).
    pub refs: Option<&'static str>,
    /// `row_tracking.json`: the columns and rows with `_ROW_ID`, `_SEQUENCE_NUMBER` per snapshot.
    pub row_tracking: Option<&'static str>,
}

impl ModernTable {
    /// An in-memory warehouse holding this table, standing for the folder it was written in.
    pub fn warehouse(&self) -> MemoryStore {
        MemoryStore::from_static(self.files).with_root_uri(self.root_uri)
    }
}

/// A read of a system table by Java Paimon 0.9 (the oracle, run by build.rs), with the table it
/// wrote for it (none for the `$ro` reads of embedded corpus tables).
pub struct JavaRead {
    /// `statistics`, `file_indexes`, `ro_<corpus table>`.
    pub name: &'static str,
    /// The warehouse Java wrote (keys relative to it).
    pub files: &'static [(&'static str, &'static [u8])],
    /// The oracle's output.
    pub java: &'static str,
}

impl JavaRead {
    /// The read named `name`.
    pub fn named(name: &str) -> &'static JavaRead {
        JAVA_SYSTEM
            .iter()
            .find(|r| r.name == name)
            .unwrap_or_else(|| panic!("no Java read {name}"))
    }

    /// An in-memory warehouse holding the table Java wrote.
    pub fn warehouse(&self) -> MemoryStore {
        MemoryStore::from_static(self.files)
    }
}

/// What the browser must do with a table of the modern corpus: its `browser` expectation in
/// `crates/paimon/tests/modern/tables.json` (the one list of the corpus's tables).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expect {
    /// Every snapshot read as pypaimon 2.1 reads it.
    Exact,
    /// Every snapshot read as the same rows pypaimon wrote to `m.<feature>_parquet`.
    Twin,
    /// BLOB references whose bytes are pypaimon's.
    Blob,
    /// An error naming the data file (a malformed value).
    Malformed,
    /// A system table, checked by its own test.
    System,
    /// Refused with an `Unsupported` error holding these words.
    Refused(Vec<String>),
}

/// The tables of `tables.json` the browser reads, with what it must do with each.
pub fn browser_expectations() -> Vec<(String, Expect)> {
    let json: serde_json::Value = serde_json::from_str(MODERN_TABLES).expect("tables.json");
    let tables = json["tables"]
        .as_array()
        .expect("tables.json: a 'tables' list");
    tables
        .iter()
        .filter_map(|entry| {
            let table = entry["table"].as_str().expect("a table name").to_string();
            let expect = match &entry["browser"] {
                serde_json::Value::Null => return None,
                serde_json::Value::String(kind) => match kind.as_str() {
                    "exact" => Expect::Exact,
                    "twin" => Expect::Twin,
                    "blob" => Expect::Blob,
                    "malformed" => Expect::Malformed,
                    "system" => Expect::System,
                    other => panic!("tables.json: {table}: unknown expectation '{other}'"),
                },
                other => Expect::Refused(
                    other["refused"]
                        .as_array()
                        .unwrap_or_else(|| panic!("tables.json: {table}: {other}"))
                        .iter()
                        .map(|w| w.as_str().expect("a word").to_string())
                        .collect(),
                ),
            };
            Some((table, expect))
        })
        .collect()
}

/// The tables the browser must treat as `kind` (a kind without words).
pub fn browser_tables(kind: &Expect) -> Vec<String> {
    browser_expectations()
        .into_iter()
        .filter(|(_, e)| e == kind)
        .map(|(t, _)| t)
        .collect()
}

/// An in-memory warehouse holding the embedded corpus tables.
pub fn corpus_warehouse() -> MemoryStore {
    MemoryStore::from_static(corpus::FILES)
}

/// Number of embedded files.
pub fn file_count() -> usize {
    corpus::FILES.len()
}

/// The rows of `batches` as gen_modern.py prints pypaimon's (cells in Arrow's display joined by
/// `|`, a top-level null as `null`), sorted.
pub fn pypaimon_lines(batches: &[RecordBatch]) -> Result<Vec<String>, arrow_schema::ArrowError> {
    let mut lines = Vec::new();
    for batch in batches {
        let formatters = batch
            .columns()
            .iter()
            .map(|c| ArrayFormatter::try_new(c.as_ref(), &FormatOptions::default()))
            .collect::<Result<Vec<_>, _>>()?;
        for row in 0..batch.num_rows() {
            let cells: Vec<String> = batch
                .columns()
                .iter()
                .zip(&formatters)
                .map(|(column, f)| {
                    if column.is_null(row) {
                        "null".to_string()
                    } else {
                        f.value(row).to_string()
                    }
                })
                .collect();
            lines.push(cells.join("|"));
        }
    }
    lines.sort();
    Ok(lines)
}
