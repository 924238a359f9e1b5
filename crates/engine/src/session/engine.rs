//! The query engine a session hands SELECTs to (DataFusion natively; injected so the core stays engine-free).

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;

/// Rows a statement returns, with their schema.
#[derive(Debug, Clone)]
pub struct QueryOutput {
    /// Schema of the rows (meaningful also without rows).
    pub schema: SchemaRef,
    /// The rows.
    pub batches: Vec<RecordBatch>,
}

impl QueryOutput {
    /// Number of rows.
    pub fn num_rows(&self) -> usize {
        self.batches.iter().map(RecordBatch::num_rows).sum()
    }
}

/// One table a query reads, already scanned: the query names it `name`.
#[derive(Debug, Clone)]
pub struct QueryInput {
    /// The name the rewritten query uses.
    pub name: String,
    /// Its rows.
    pub data: QueryOutput,
}

/// What a query reads of one input table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ColumnsNeeded {
    /// Every column.
    All,
    /// These columns (indices into the input's schema); empty: rows only, e.g. `COUNT(*)`.
    Some(Vec<usize>),
    /// Nothing: the planner removed the scan (e.g. `WHERE false`).
    Nothing,
}

/// Runs SQL (the generic dialect, table names replaced by [`QueryInput::name`]) over Arrow data.
#[async_trait::async_trait(?Send)]
pub trait QueryEngine {
    /// What the query reads of each input, in input order: lakescope scans only that.
    async fn columns_needed(
        &self,
        sql: &str,
        inputs: &[(String, SchemaRef)],
    ) -> Result<Vec<ColumnsNeeded>, String>;

    /// Runs the query over the inputs.
    async fn run(&self, sql: &str, inputs: Vec<QueryInput>) -> Result<QueryOutput, String>;
}
