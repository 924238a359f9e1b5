//! Corpus tables embedded at build time, loaded into an in-memory warehouse for browser tests.

use arrow_array::{Array, RecordBatch};
use arrow_cast::display::{ArrayFormatter, FormatOptions};
use lakescope_storage::MemoryStore;

mod corpus {
    include!(concat!(env!("OUT_DIR"), "/corpus.rs"));
}

pub use corpus::{EXPECTED, MODERN, MODERN_PROBLEM};

/// One table of the modern corpus (issue 25): the warehouse pypaimon 2.1 wrote for a feature of
/// `crates/paimon/tests/modern/gen_modern.py` (`m.<feature>`), with pypaimon's own reads of it.
pub struct ModernTable {
    /// The generator's feature, also the table's name in database `m`.
    pub feature: &'static str,
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
    /// An in-memory warehouse holding this table.
    pub fn warehouse(&self) -> MemoryStore {
        MemoryStore::from_static(self.files)
    }
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
