//! SELECT: resolve the tables a query reads, scan only the columns it needs at the version its hints name, and run it.

use super::as_of;
use super::catalogs::{Location, Resolved};
use super::convert::time_travel;
use super::{at, ColumnsNeeded, QueryInput, QueryOutput, Session, StatementError, StatementResult};
use crate::TableRef;
use crate::{
    scan::{ScanRequest, ScanResult},
    Version,
};
use lakescope_paimon::spec::types::DataField;
use lakescope_paimon::table::Table;
use lakescope_sql::ast::QueryStatement;
use lakescope_sql::rewrite::{cte_names, query_with_tables};
use lakescope_sql::Pos;

/// A table a query reads, resolved, with the version to read.
struct Source {
    name: String,
    resolved: Resolved,
    request: ScanRequest,
    pos: Pos,
}

/// The name a query uses for its i-th table once resolved.
pub(super) fn input_name(i: usize) -> String {
    format!("__lakescope_{i}")
}

impl Session {
    /// Reads a resolved table (or system table).
    pub(super) async fn scan_resolved(
        &self,
        r: &Resolved,
        request: &ScanRequest,
        pos: Pos,
    ) -> StatementResult<ScanResult> {
        let table_ref = TableRef {
            database: r.database.clone(),
            table: r.table.clone(),
            system: r.system.clone(),
        };
        match r.existing(pos)? {
            Location::Paimon(location) => {
                let table = location.clone().open().await.map_err(|e| at(pos, e))?;
                crate::scan::scan_table(&table, &table_ref, request)
                    .await
                    .map_err(|e| at(pos, e))
            }
            Location::Iceberg(table) => {
                crate::iceberg_scan::scan_table(table, &table_ref, request)
                    .await
                    .map_err(|e| at(pos, e))
            }
            Location::Connector(c) => Err(StatementError::new(
                pos,
                format!(
                    "reading {} needs a Flink cluster: its connector '{c}' is a source lakescope cannot run (lakescope reads Paimon and Iceberg tables)",
                    r.qualified()
                ),
            )),
        }
    }

    /// The current Paimon fields of the tables a query reads (for CTAS column types).
    pub(super) async fn source_fields(&self, q: &QueryStatement) -> Vec<DataField> {
        let mut out = Vec::new();
        for t in &q.tables {
            let Ok(r) = self.resolve(&t.name).await else {
                continue;
            };
            if let Some(Location::Paimon(location)) = &r.location {
                let table = match r.branch() {
                    None => Table::open(location.store.clone(), location.path.as_str()).await,
                    Some(b) => {
                        Table::open_branch(location.store.clone(), location.path.as_str(), b).await
                    }
                };
                if let Ok(table) = table {
                    out.extend(table.current_schema().fields.iter().cloned());
                }
            }
        }
        out
    }

    /// Runs a query: every table it names is read at the version its hints select, only the
    /// columns the query uses.
    pub(super) async fn query(&self, q: &QueryStatement, pos: Pos) -> StatementResult<QueryOutput> {
        let ctes = cte_names(q);
        let mut names = Vec::new();
        let mut sources = Vec::new();
        for (i, t) in q.tables.iter().enumerate() {
            if t.name.parts.len() == 1 && ctes.contains(&t.name.parts[0]) {
                names.push(None);
                continue;
            }
            let resolved = self.resolve(&t.name).await?.with_branch_hint(&t.hints)?;
            resolved.existing(t.name.pos)?;
            let at = match &t.as_of {
                None => time_travel(&t.hints)?,
                Some(as_of) => {
                    if time_travel(&t.hints)? != Version::Latest {
                        return Err(StatementError::new(
                            t.name.pos,
                            format!("{} is read both FOR SYSTEM_TIME AS OF {as_of} and at the version its OPTIONS hint selects: keep one of the two", t.name),
                        ));
                    }
                    let zone = self.options.get(as_of::TIME_ZONE_OPTION);
                    let millis = as_of::as_of_millis(as_of, zone.map(String::as_str))
                        .map_err(|e| StatementError::new(t.name.pos, e))?;
                    Version::TimestampMillis(millis)
                }
            };
            let request = ScanRequest {
                at,
                ..ScanRequest::default()
            };
            names.push(Some(input_name(i)));
            sources.push(Source {
                name: input_name(i),
                resolved,
                request,
                pos: t.name.pos,
            });
        }
        let sql = query_with_tables(q, &names);
        self.run_sources(&sql, sources, pos).await
    }

    /// Runs `sql` over already resolved inputs: plans once on empty tables to learn which
    /// columns each input needs, scans those, then runs.
    async fn run_sources(
        &self,
        sql: &str,
        sources: Vec<Source>,
        pos: Pos,
    ) -> StatementResult<QueryOutput> {
        let mut schemas = Vec::new();
        for s in &sources {
            let probe = ScanRequest {
                limit: Some(0),
                ..s.request.clone()
            };
            let out = self.scan_resolved(&s.resolved, &probe, s.pos).await?;
            schemas.push((s.name.clone(), out.schema));
        }
        let needed = self
            .query_engine
            .columns_needed(sql, &schemas)
            .await
            .map_err(|e| StatementError::new(pos, e))?;
        let mut inputs = Vec::new();
        for ((s, (_, schema)), needed) in sources.iter().zip(&schemas).zip(needed) {
            let mut request = s.request.clone();
            let indices = match needed {
                ColumnsNeeded::All => None,
                // COUNT(*) needs rows but no column: read the first
                ColumnsNeeded::Some(indices) if indices.is_empty() => Some(vec![0]),
                ColumnsNeeded::Some(indices) => Some(indices),
                ColumnsNeeded::Nothing => {
                    // keep the full schema, so that `SELECT *` means the same
                    inputs.push(QueryInput {
                        name: s.name.clone(),
                        data: QueryOutput {
                            schema: schema.clone(),
                            batches: Vec::new(),
                        },
                    });
                    continue;
                }
            };
            if let Some(indices) = indices {
                let columns = indices
                    .iter()
                    .filter_map(|i| schema.fields().get(*i).map(|f| f.name().clone()))
                    .collect::<Vec<_>>();
                if !columns.is_empty() {
                    request.columns = Some(columns);
                }
            }
            let out = self.scan_resolved(&s.resolved, &request, s.pos).await?;
            inputs.push(QueryInput {
                name: s.name.clone(),
                data: QueryOutput {
                    schema: out.schema,
                    batches: out.batches,
                },
            });
        }
        self.query_engine
            .run(sql, inputs)
            .await
            .map_err(|e| StatementError::new(pos, e))
    }

    /// Runs `sql` whose only table, named [`input_name`]`(0)`, is `table` at its latest version.
    pub(super) async fn query_one(
        &self,
        sql: &str,
        table: &Resolved,
        pos: Pos,
    ) -> StatementResult<QueryOutput> {
        let source = Source {
            name: input_name(0),
            resolved: table.clone(),
            request: ScanRequest::default(),
            pos,
        };
        self.run_sources(sql, vec![source], pos).await
    }

    /// Runs a query without tables (e.g. `VALUES (...)`).
    pub(super) async fn query_text(&self, sql: &str, pos: Pos) -> StatementResult<QueryOutput> {
        self.run_sources(sql, Vec::new(), pos).await
    }
}
