//! BLOB cells of a read: the reference a BLOB column holds in each row, and its bytes, fetched
//! only when asked for.

use crate::{Catalog, Result};
use arrow_array::Array;
use bytes::Bytes;

pub use lakescope_paimon::read::blob::BlobRef;

/// The BLOB reference in row `row` of `column`: `None` if it is not a BLOB column (or the row
/// cannot be read as one), `Some(None)` for a NULL BLOB.
pub fn reference(column: &dyn Array, row: usize) -> Option<Option<BlobRef>> {
    if column.data_type() != &lakescope_paimon::read::blob::reference_type() {
        return None;
    }
    lakescope_paimon::read::blob::reference(column, row).ok()
}

impl Catalog {
    /// The bytes `reference` points at in this warehouse (one range read of the `.blob` file,
    /// checked against the length the reference gives).
    pub async fn fetch_blob(&self, reference: &BlobRef) -> Result<Bytes> {
        let store = self.store()?;
        Ok(lakescope_paimon::read::blob::fetch(store.as_ref(), reference).await?)
    }
}
