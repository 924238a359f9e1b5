//! Reading through lakescope-engine, in the oracles' form.

use crate::oracles::normalize;
use lakescope_engine::canonical::batches_to_lines;
use lakescope_engine::{scan::ScanRequest, Version};
use lakescope_engine::{Catalog, TableRef};

/// lakescope's rows of `table` at `at` as normalized canonical JSON lines, sorted (as
/// [`crate::oracles::sections`] gives the oracles' rows); a failed scan is its message.
pub async fn canonical_rows(
    catalog: &Catalog,
    table: &TableRef,
    at: Version,
) -> Result<Vec<String>, String> {
    let r = catalog
        .scan(
            table,
            &ScanRequest {
                at,
                ..Default::default()
            },
        )
        .await
        .map_err(|e| e.to_string())?;
    Ok(normalize(batches_to_lines(&r.batches).unwrap()))
}
