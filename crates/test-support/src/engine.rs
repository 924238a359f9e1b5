//! Reading through lakescope-engine, in the oracles' form, and SQL sessions over local folders.

use crate::oracles::normalize;
use lakescope_engine::canonical::batches_to_lines;
use lakescope_engine::session::{
    ColumnsNeeded, Outcome, QueryEngine, QueryInput, QueryOutput, Session, StoreOpener,
};
use lakescope_engine::{scan::ScanRequest, Version};
use lakescope_engine::{Catalog, TableRef};
use lakescope_paimon::write::FixedEnv;
use lakescope_storage::{LocalStore, ObjectStore};
use std::rc::Rc;

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

/// Opens warehouse URIs as local folders: the SQL session's stores in tests.
pub struct LocalOpener;

impl StoreOpener for LocalOpener {
    fn open(&self, uri: &str) -> lakescope_storage::Result<Rc<dyn ObjectStore>> {
        Ok(Rc::new(LocalStore::from_uri(uri)))
    }
}

/// The query engine of sessions that run no query (DDL, DML, CALL, DESCRIBE): a query is an
/// error naming it.
pub struct NoQueries;

#[async_trait::async_trait(?Send)]
impl QueryEngine for NoQueries {
    async fn columns_needed(
        &self,
        sql: &str,
        _inputs: &[(String, arrow_schema::SchemaRef)],
    ) -> Result<Vec<ColumnsNeeded>, String> {
        Err(format!("this test runs no query: {sql}"))
    }

    async fn run(&self, sql: &str, _inputs: Vec<QueryInput>) -> Result<QueryOutput, String> {
        Err(format!("this test runs no query: {sql}"))
    }
}

/// A SQL session over local folders without a query engine, its clock starting at
/// `start_millis` and its randomness seeded with `seed`.
pub fn local_session(start_millis: i64, seed: u64) -> Session {
    Session::new(
        Rc::new(LocalOpener),
        Rc::new(NoQueries),
        Rc::new(FixedEnv::new(start_millis, seed)),
    )
}

/// Runs one statement in `session`; returns its message (empty for rows). Panics naming the
/// statement when it fails.
pub async fn sql(session: &mut Session, statement: &str) -> String {
    let mut out = None;
    session
        .run_script(statement, false, &mut |_, result| {
            out = Some(match result {
                Ok(Outcome::Done(m)) => Ok(m.clone()),
                Ok(_) => Ok(String::new()),
                Err(e) => Err(e.message.clone()),
            });
        })
        .await;
    out.unwrap_or_else(|| Err("no statement".into()))
        .unwrap_or_else(|e| panic!("{statement}: {e}"))
}
