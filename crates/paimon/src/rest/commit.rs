//! Snapshot commits through a Paimon REST catalog (Java's `RESTSnapshotCommit`): the snapshot
//! goes to `POST …/tables/{table}/commit` and the server creates `snapshot-N` and `LATEST`.

use super::{RestCatalog, RestTable};
use crate::commit::{partition_statistics, PartitionStatistics, SnapshotCommit};
use crate::error::{Error, Result};
use crate::spec::manifest::ManifestEntry;
use crate::spec::snapshot::Snapshot;
use crate::table::Table;
use async_trait::async_trait;
use lakescope_storage::transport::may_have_applied;
use serde::{Deserialize, Serialize};

/// `CommitTableRequest`, as pypaimon 2.1 sends it.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CommitTableRequest<'a> {
    /// The table's uuid in the catalog: the server refuses a commit meant for another table
    /// of the same name (dropped and created again).
    table_id: Option<&'a str>,
    /// The uuid of the snapshot the commit was planned on (`None`: the table had none); the
    /// server refuses the commit when its latest is another.
    base_snapshot_uuid: Option<&'a str>,
    snapshot: &'a Snapshot,
    statistics: Vec<PartitionStatistics>,
}

#[derive(Deserialize)]
struct CommitTableResponse {
    success: bool,
}

/// Commits a REST catalog's table through the catalog's commit endpoint.
#[derive(Debug, Clone)]
pub struct RestSnapshotCommit {
    catalog: RestCatalog,
    database: String,
    table: String,
    table_id: Option<String>,
}

impl RestSnapshotCommit {
    /// Commits of the table `database.table` that `loaded` describes (its uuid is sent along).
    pub fn new(catalog: RestCatalog, database: &str, loaded: &RestTable) -> Self {
        Self {
            catalog,
            database: database.to_string(),
            table: loaded.name.clone(),
            table_id: loaded.id.clone(),
        }
    }
}

#[async_trait(?Send)]
impl SnapshotCommit for RestSnapshotCommit {
    /// `{"success": false}` and `409 Conflict` are lost races (the server kept its latest
    /// snapshot; the committer plans again). A `5xx` (but `501`), no or a cut-off answer, or
    /// an unreadable success is [`Error::CommitStateUnknown`]: the server may have created the
    /// snapshot, so its files are kept (as Java's committer, which never cleans up after an
    /// exception of the commit call); the committer then looks for the snapshot and reports the
    /// unknown outcome when it is not there. Any other refusal names the endpoint and the table
    /// and says nothing was committed.
    async fn commit(
        &self,
        table: &Table,
        base: Option<&Snapshot>,
        snapshot: &Snapshot,
        entries: &[ManifestEntry],
    ) -> Result<bool> {
        let name = format!("{}.{}", self.database, self.table);
        let request = CommitTableRequest {
            table_id: self.table_id.as_deref(),
            base_snapshot_uuid: base.and_then(|s| s.uuid.as_deref()),
            snapshot,
            statistics: partition_statistics(table, entries)?,
        };
        let body = serde_json::to_vec(&request).map_err(|e| {
            Error::Invalid(format!("{name}: serializing snapshot {}: {e}", snapshot.id))
        })?;
        let path = format!(
            "{}/commit",
            self.catalog.table_path(&self.database, &self.table)
        );
        match self
            .catalog
            .call::<CommitTableResponse>("POST", &path, Some(body))
            .await
        {
            Ok(answer) => Ok(answer.success),
            Err(Error::Catalog {
                status: Some(409), ..
            }) => Ok(false),
            Err(Error::Catalog {
                endpoint,
                status,
                message,
            }) if may_have_applied(status) => {
                let answer = status.map_or_else(String::new, |s| format!(" answered {s}"));
                Err(Error::CommitStateUnknown {
                    table: name,
                    cause: format!("snapshot {}: {endpoint}{answer}: {message}", snapshot.id),
                })
            }
            Err(Error::Catalog {
                endpoint,
                status,
                message,
            }) => Err(Error::Catalog {
                endpoint,
                status,
                message: format!(
                    "committing snapshot {} of table {name}: {message} (nothing was committed)",
                    snapshot.id
                ),
            }),
            Err(Error::NotFound { what, context }) => Err(Error::NotFound {
                what,
                context: Some(format!(
                    "{}; nothing was committed",
                    context.unwrap_or_default()
                )),
            }),
            Err(e) => Err(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::commit::CommitOptions;
    use crate::rest::RestOptions;
    use crate::spec::types::{DataType, TypeKind};
    use crate::write::schema::{create_table, TableDefinition};
    use crate::write::{write, FixedEnv};
    use crate::write_commit::commit_write;
    use arrow_array::{ArrayRef, Int32Array, RecordBatch, StringArray};
    use lakescope_storage::transport::{CannedTransport, HttpTransport, ReqwestTransport};
    use lakescope_storage::{MemoryStore, ObjectStore};
    use lakescope_test_support::http_faults::{FaultServer, Reply};
    use std::rc::Rc;
    use std::sync::Arc;
    use std::time::Duration;

    /// A partitioned table `d/t` in memory, committing through a catalog answering `answers`
    /// after its config; two rows are written (partitions `a` and `b`).
    async fn table_and_write(
        answers: Vec<(u16, &str)>,
    ) -> (
        Rc<MemoryStore>,
        Table,
        Rc<CannedTransport>,
        crate::write::CommitMessage,
    ) {
        let mut script = vec![(200, r#"{"defaults":{"prefix":"pre"}}"#)];
        script.extend(answers);
        let transport = Rc::new(CannedTransport::new(script));
        let (store, table, message) = table_at("http://h", transport.clone()).await;
        (store, table, transport, message)
    }

    /// The table of [`table_and_write`] with a catalog at `uri` over `transport` (which answers
    /// the config first).
    async fn table_at(
        uri: &str,
        transport: Rc<dyn HttpTransport>,
    ) -> (Rc<MemoryStore>, Table, crate::write::CommitMessage) {
        let store = Rc::new(MemoryStore::new());
        let env = FixedEnv::new(1_700_000_000_000, 5);
        let def = TableDefinition {
            columns: vec![
                ("id".into(), DataType::nullable(TypeKind::Int), None),
                (
                    "p".into(),
                    DataType::nullable(TypeKind::VarChar(i32::MAX as u32)),
                    None,
                ),
            ],
            partition_keys: vec!["p".into()],
            ..TableDefinition::default()
        };
        create_table(store.as_ref(), "d/t", &def, &env)
            .await
            .unwrap();
        let options = RestOptions {
            warehouse: "wh".into(),
            ..RestOptions::default()
        };
        let catalog = RestCatalog::connect(uri, &options, transport)
            .await
            .unwrap();
        let loaded = RestTable {
            id: Some("uuid-1".into()),
            name: "t".into(),
            path: "file:///wh/d/t".into(),
            is_external: false,
            schema_id: 0,
        };
        let table = Table::open(store.clone() as Rc<dyn ObjectStore>, "d/t")
            .await
            .unwrap()
            .with_snapshot_commit(Rc::new(RestSnapshotCommit::new(catalog, "d", &loaded)));
        let batch = RecordBatch::try_from_iter([
            ("id", Arc::new(Int32Array::from(vec![1, 2])) as ArrayRef),
            ("p", Arc::new(StringArray::from(vec!["a", "b"])) as ArrayRef),
        ])
        .unwrap();
        let message = write(&table, &env, &[batch], 0).await.unwrap();
        (store, table, message)
    }

    #[tokio::test]
    async fn lost_races_are_planned_again_and_the_server_creates_the_snapshot() {
        let (store, table, transport, message) = table_and_write(vec![
            (200, r#"{"success":false}"#),
            (409, r#"{"message":"snapshot 1 exists","code":409}"#),
            (200, r#"{"success":true}"#),
        ])
        .await;
        let env = FixedEnv::new(1_700_000_000_000, 6);
        let options = CommitOptions::for_table(&table, "u").unwrap();
        let outcome = commit_write(&table, &env, options, message, None)
            .await
            .unwrap();
        assert_eq!((outcome.snapshot.id, outcome.retries), (1, 2));
        let sent = transport.sent();
        assert_eq!(sent.len(), 4);
        for r in &sent[1..] {
            assert_eq!(r.method, "POST");
            assert_eq!(r.url, "http://h/v1/pre/databases/d/tables/t/commit");
        }
        let body: serde_json::Value = serde_json::from_slice(&sent[3].body).unwrap();
        assert_eq!(body["tableId"], "uuid-1");
        assert_eq!(body["baseSnapshotUuid"], serde_json::Value::Null);
        assert_eq!(body["snapshot"]["id"], 1);
        assert_eq!(body["snapshot"]["commitUser"], "u");
        let stats = body["statistics"].as_array().unwrap();
        let specs: Vec<_> = stats.iter().map(|s| s["spec"]["p"].clone()).collect();
        assert_eq!(specs, vec!["a", "b"]);
        assert!(stats
            .iter()
            .all(|s| s["recordCount"] == 1 && s["fileCount"] == 1));
        // the server writes snapshot-N and LATEST; lakescope wrote neither
        let listed = store.list_dir("d/t/snapshot").await.unwrap();
        assert!(listed.files.is_empty(), "{listed:?}");
        // the manifests of the two lost attempts were removed, the winner's are kept
        let manifests = store.list_dir("d/t/manifest").await.unwrap().files;
        assert_eq!(manifests.len(), 3, "{manifests:?}");
    }

    #[tokio::test]
    async fn a_failed_commit_names_the_endpoint_and_the_table() {
        let (_, table, _, message) =
            table_and_write(vec![(500, r#"{"message":"disk full","code":500}"#)]).await;
        let env = FixedEnv::new(1_700_000_000_000, 6);
        let options = CommitOptions::for_table(&table, "u").unwrap();
        let e = commit_write(&table, &env, options, message.clone(), None)
            .await
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("POST http://h/v1/pre/databases/d/tables/t/commit")
                && e.starts_with("d.t: ")
                && e.contains("disk full")
                && e.contains("may or may not"),
            "{e}"
        );

        let (_, table, _, message) = table_and_write(vec![(403, r#"{"message":"no"}"#)]).await;
        let options = CommitOptions::for_table(&table, "u").unwrap();
        let e = commit_write(&table, &env, options, message, None)
            .await
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("check the catalog token") && e.contains("nothing was committed"),
            "{e}"
        );
    }

    /// The config answer of the fault server's catalog.
    const CONFIG: &str = r#"{"defaults":{"prefix":"pre"}}"#;

    #[tokio::test]
    async fn a_commit_the_server_may_have_applied_keeps_its_files() {
        let body = r#"{"success":true}"#.to_string();
        for reply in [
            Reply::Answer(503, r#"{"message":"overloaded"}"#.into()),
            Reply::Truncated(200, body.clone()),
            Reply::Answer(200, "<html>proxy</html>".into()),
            Reply::Silent,
        ] {
            let server = FaultServer::start(vec![Reply::Answer(200, CONFIG.into()), reply.clone()]);
            let transport = Rc::new(ReqwestTransport::new(Duration::from_millis(500)).unwrap());
            let (store, table, message) = table_at(server.url(), transport).await;
            let env = FixedEnv::new(1_700_000_000_000, 6);
            let options = CommitOptions::for_table(&table, "u").unwrap();
            let e = commit_write(&table, &env, options, message, None)
                .await
                .unwrap_err();
            assert!(
                matches!(e, Error::CommitStateUnknown { .. }),
                "{reply:?}: {e}"
            );
            let text = e.to_string();
            let endpoint = format!("POST {}/v1/pre/databases/d/tables/t/commit", server.url());
            assert!(
                text.starts_with("d.t: the commit may or may not have been applied")
                    && text.contains(&endpoint),
                "{reply:?}: {text}"
            );
            assert_eq!(server.requests().len(), 2, "{reply:?}: not retried");
            let manifests = store.list_dir("d/t/manifest").await.unwrap().files;
            assert!(!manifests.is_empty(), "{reply:?}: the files are kept");
        }
    }

    #[tokio::test]
    async fn a_commit_refused_with_501_or_400_commits_nothing() {
        for status in [501, 400] {
            let server = FaultServer::start(vec![
                Reply::Answer(200, CONFIG.into()),
                Reply::Answer(status, r#"{"message":"not here"}"#.into()),
            ]);
            let transport = Rc::new(ReqwestTransport::new(Duration::from_secs(5)).unwrap());
            let (_, table, message) = table_at(server.url(), transport).await;
            let env = FixedEnv::new(1_700_000_000_000, 6);
            let options = CommitOptions::for_table(&table, "u").unwrap();
            let e = commit_write(&table, &env, options, message, None)
                .await
                .unwrap_err();
            let text = e.to_string();
            assert!(
                matches!(e, Error::Catalog { status: Some(s), .. } if s == status)
                    && text.contains("not here")
                    && text.contains("nothing was committed"),
                "{text}"
            );
        }
    }

    /// Writes each posted snapshot where the service would (`snapshot/snapshot-N` of the table's
    /// store, once known), then answers `500`: the commit was applied, its answer lost.
    struct AppliedThenFailed {
        store: std::cell::RefCell<Option<Rc<MemoryStore>>>,
        inner: CannedTransport,
    }

    #[async_trait(?Send)]
    impl HttpTransport for AppliedThenFailed {
        async fn send(
            &self,
            request: lakescope_storage::transport::HttpRequest,
        ) -> std::result::Result<
            lakescope_storage::transport::HttpResponse,
            lakescope_storage::transport::TransportError,
        > {
            let store = self.store.borrow().clone();
            if let (Some(store), "POST") = (store, request.method) {
                let body: serde_json::Value = serde_json::from_slice(&request.body).unwrap();
                let id = body["snapshot"]["id"].as_i64().unwrap();
                let json = serde_json::to_vec(&body["snapshot"]).unwrap();
                let key = format!("d/t/snapshot/snapshot-{id}");
                store.put(&key, json.into()).await.unwrap();
            }
            self.inner.send(request).await
        }
    }

    #[tokio::test]
    async fn a_commit_applied_whose_answer_was_lost_is_found_and_succeeds() {
        let transport = Rc::new(AppliedThenFailed {
            store: std::cell::RefCell::new(None),
            inner: CannedTransport::new([(200, CONFIG), (500, "lost")]),
        });
        let (store, table, message) = table_at("http://h", transport.clone()).await;
        *transport.store.borrow_mut() = Some(store.clone());
        let env = FixedEnv::new(1_700_000_000_000, 6);
        let options = CommitOptions::for_table(&table, "u").unwrap();
        let outcome = commit_write(&table, &env, options, message, None)
            .await
            .unwrap();
        assert_eq!(outcome.snapshot.id, 1);
        assert_eq!(table.snapshot(1).await.unwrap(), outcome.snapshot);
    }
}
