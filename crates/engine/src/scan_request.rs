//! What a scan asks for ([`ScanRequest`]: version, columns, limit, filter) and what it gives
//! ([`ScanResult`]), for both formats' scans.

use crate::version::Version;
use crate::Result;
use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use lakescope_paimon::predicate::Predicate;

/// What to read.
#[derive(Debug, Clone, Default)]
pub struct ScanRequest {
    /// Version to read.
    pub at: Version,
    /// Only these columns, in this order.
    pub columns: Option<Vec<String>>,
    /// At most this many rows.
    pub limit: Option<usize>,
    /// Only rows where this holds (tables only; prunes partitions and files, then filters the
    /// merged rows).
    pub filter: Option<Predicate>,
}

/// The filter of a [`ScanRequest`] (and of [`crate::Catalog::plan_scan`]) from the text
/// users type: `a = 'x' AND n >= 3`, `b IS NULL`, `c IN (1, 2)`, `s LIKE 'ab%'`; dates and
/// timestamps as strings. The error names the offending token.
pub fn parse_filter(text: &str) -> Result<Predicate> {
    Ok(lakescope_paimon::predicate::parse::parse(text)?)
}

/// Rows read, with their schema.
#[derive(Debug, Clone)]
pub struct ScanResult {
    /// Schema of the batches (also meaningful when there are no rows).
    pub schema: SchemaRef,
    /// The rows.
    pub batches: Vec<RecordBatch>,
}
