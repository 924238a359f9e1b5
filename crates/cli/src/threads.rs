//! `--threads`: how many worker threads a read uses, and the catalog each of them opens again.

use lakescope_engine::parallel_scan::CatalogOpener;
use lakescope_engine::{Catalog, Result};
use std::num::NonZeroUsize;

/// Parses `--threads N`: a positive number of threads.
pub fn parse(text: &str) -> std::result::Result<NonZeroUsize, String> {
    let n: usize = text
        .trim()
        .parse()
        .map_err(|_| format!("'{text}' is not a number of threads"))?;
    NonZeroUsize::new(n).ok_or_else(|| {
        "0 threads cannot read anything: give at least 1 (1 reads on the main thread)".to_string()
    })
}

/// `--threads` when not given: every core this process may use (1 if that is unknown).
pub fn default() -> NonZeroUsize {
    std::thread::available_parallelism().unwrap_or(NonZeroUsize::MIN)
}

/// Opens the warehouse or catalog service of this run (its URI, with this run's storage
/// options and catalog secrets) on a worker's thread, as the main thread opened it.
pub struct SameWarehouse {
    /// The warehouse URI or catalog address given on the command line.
    pub warehouse: String,
}

#[async_trait::async_trait(?Send)]
impl CatalogOpener for SameWarehouse {
    async fn open_catalog(&self) -> Result<Catalog> {
        crate::open_catalog_typed(&self.warehouse).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_threads_are_refused() {
        let e = parse("0").unwrap_err();
        assert!(e.contains("at least 1"), "{e}");
        assert!(parse("two").unwrap_err().contains("'two'"));
        assert_eq!(parse("3").unwrap().get(), 3);
    }
}
