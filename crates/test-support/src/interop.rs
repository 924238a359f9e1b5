//! Interop checks: a lakescope-written table read at each snapshot by lakescope, Java Paimon
//! 0.9 and pypaimon 2.1, asserting the readers agree (or that pypaimon refuses as expected).

use crate::engine::canonical_rows;
use crate::oracles::{read_java, read_pypaimon, Oracles};
use lakescope_engine::{Catalog, TableRef, Version};
use std::collections::BTreeMap;
use std::path::Path;

/// What pypaimon 2.1 is expected to return for a table's snapshots.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pypaimon {
    /// The same rows as lakescope.
    Agrees,
    /// An error whose message contains all of these.
    Refuses(&'static [&'static str]),
    /// Not asked (e.g. it cannot read Java 0.9's manifests).
    Skip,
}

/// Reads `table` at each snapshot of `ids` in lakescope and Java 0.9 (which must agree) and in
/// pypaimon as `pypaimon` says; returns lakescope's rows per snapshot. Panics naming the table,
/// the snapshot and the reader that disagrees.
pub async fn agree_at_snapshots(
    o: &Oracles,
    catalog: &Catalog,
    warehouse: &Path,
    table: &TableRef,
    ids: &[i64],
    pypaimon: Pypaimon,
) -> BTreeMap<i64, Vec<String>> {
    let java = read_java(o, &warehouse.join(table.path()), ids);
    let py = match pypaimon {
        Pypaimon::Skip => BTreeMap::new(),
        _ => read_pypaimon(
            o,
            warehouse,
            &format!("{}.{}", table.database, table.table),
            ids,
        ),
    };
    let mut all = BTreeMap::new();
    for id in ids {
        let mine = canonical_rows(catalog, table, Version::SnapshotId(*id))
            .await
            .unwrap_or_else(|e| panic!("{table} snapshot {id}: lakescope failed: {e}"));
        let j = java
            .get(id)
            .unwrap_or_else(|| panic!("{table} snapshot {id}: no Java output"));
        assert_eq!(
            j.as_ref(),
            Ok(&mine),
            "{table} snapshot {id}: Java 0.9 disagrees with lakescope"
        );
        let p = || {
            py.get(id)
                .unwrap_or_else(|| panic!("{table} snapshot {id}: no pypaimon output"))
        };
        match pypaimon {
            Pypaimon::Agrees => assert_eq!(
                p().as_ref(),
                Ok(&mine),
                "{table} snapshot {id}: pypaimon 2.1 disagrees with lakescope"
            ),
            Pypaimon::Refuses(parts) => {
                let err = p()
                    .as_ref()
                    .expect_err("pypaimon 2.1 was expected to refuse");
                for part in parts {
                    assert!(
                        err.contains(part),
                        "{table} snapshot {id}: pypaimon said {err}"
                    );
                }
            }
            Pypaimon::Skip => {}
        }
        eprintln!(
            "{table} snapshot {id}: {} rows agree ({pypaimon:?})",
            mine.len()
        );
        all.insert(*id, mine);
    }
    all
}
