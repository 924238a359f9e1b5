//! DataFusion as lakescope's query engine: runs the SELECTs of Flink SQL over Arrow batches from lakescope's scans.

#![warn(missing_docs)]

mod functions;

use arrow_schema::SchemaRef;
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::datasource::MemTable;
use datafusion::error::DataFusionError;
use datafusion::execution::context::SQLOptions;
use datafusion::logical_expr::LogicalPlan;
use datafusion::prelude::{SessionConfig, SessionContext};
use lakescope_engine::session::{ColumnsNeeded, QueryEngine, QueryInput, QueryOutput};
use std::collections::BTreeSet;
use std::sync::Arc;

/// Runs queries with DataFusion, single-partitioned (results in a stable order for a given
/// input), identifiers case-sensitive as in Flink, decimal literals exact.
#[derive(Debug, Default, Clone, Copy)]
pub struct DataFusionEngine;

fn context() -> SessionContext {
    let mut config = SessionConfig::new().with_target_partitions(1);
    let options = config.options_mut();
    options.sql_parser.enable_ident_normalization = false;
    options.sql_parser.parse_float_as_decimal = true;
    let ctx = SessionContext::new_with_config(config);
    functions::register(&ctx);
    ctx
}

/// Only queries: the text comes from a parsed query, but never let it create or write anything.
fn read_only() -> SQLOptions {
    SQLOptions::new()
        .with_allow_ddl(false)
        .with_allow_dml(false)
        .with_allow_statements(false)
}

/// DataFusion's message, without its internal prefixes where they add nothing.
fn message(e: DataFusionError) -> String {
    let text = e.to_string();
    for prefix in ["Error during planning: ", "SQL error: ", "Schema error: "] {
        if let Some(rest) = text.strip_prefix(prefix) {
            return rest.to_string();
        }
    }
    text
}

fn register(
    ctx: &SessionContext,
    name: &str,
    schema: SchemaRef,
    batches: Vec<arrow_array::RecordBatch>,
) -> Result<(), String> {
    let table = MemTable::try_new(schema, vec![batches]).map_err(message)?;
    ctx.register_table(name, Arc::new(table))
        .map(|_| ())
        .map_err(message)
}

#[async_trait::async_trait(?Send)]
impl QueryEngine for DataFusionEngine {
    async fn columns_needed(
        &self,
        sql: &str,
        inputs: &[(String, SchemaRef)],
    ) -> Result<Vec<ColumnsNeeded>, String> {
        let ctx = context();
        for (name, schema) in inputs {
            register(&ctx, name, schema.clone(), Vec::new())?;
        }
        let state = ctx.state();
        let plan = state.create_logical_plan(sql).await.map_err(message)?;
        read_only().verify_plan(&plan).map_err(message)?;
        let plan = state.optimize(&plan).map_err(message)?;
        // Per input: the union of what its scans read; inputs without a scan are not read.
        let mut needed = vec![ColumnsNeeded::Nothing; inputs.len()];
        plan.apply_with_subqueries(|node| {
            if let LogicalPlan::TableScan(scan) = node {
                if let Some(i) = inputs
                    .iter()
                    .position(|(name, _)| scan.table_name.table() == name)
                {
                    needed[i] = match (
                        &scan.projection,
                        std::mem::replace(&mut needed[i], ColumnsNeeded::All),
                    ) {
                        (None, _) | (_, ColumnsNeeded::All) => ColumnsNeeded::All,
                        (Some(p), ColumnsNeeded::Nothing) => ColumnsNeeded::Some(p.clone()),
                        (Some(p), ColumnsNeeded::Some(before)) => {
                            let set: BTreeSet<usize> =
                                before.into_iter().chain(p.iter().copied()).collect();
                            ColumnsNeeded::Some(set.into_iter().collect())
                        }
                    };
                }
            }
            Ok(TreeNodeRecursion::Continue)
        })
        .map_err(message)?;
        Ok(needed)
    }

    async fn run(&self, sql: &str, inputs: Vec<QueryInput>) -> Result<QueryOutput, String> {
        let ctx = context();
        for input in inputs {
            register(&ctx, &input.name, input.data.schema, input.data.batches)?;
        }
        let frame = ctx
            .sql_with_options(sql, read_only())
            .await
            .map_err(message)?;
        let schema: SchemaRef = Arc::new(frame.schema().as_arrow().clone());
        let batches = frame.collect().await.map_err(message)?;
        Ok(QueryOutput { schema, batches })
    }
}
