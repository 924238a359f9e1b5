//! The SQL console's messages between the page and the worker that runs its session (plain data, JSON).

use super::{PreviewOutcome, StatementReport};
use crate::{CatalogAddress, CatalogSecrets, ServedLocation};
use lakescope_storage::uri::StoreOptions;
use serde::{Deserialize, Serialize};

/// What the page asks of the worker. Requests run one after another, in order. Tagged by an
/// `op` field (`{"op":"run","id":3,…}`): only the worker parses them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum ConsoleRequest {
    /// Make the warehouse at `uri` the current catalog `lakescope` (database `default`), as
    /// `lakescope sql --warehouse` does.
    Open {
        /// Request id, echoed in every event it causes.
        id: u64,
        /// An absolute warehouse URI.
        uri: String,
        /// How to reach it (S3 endpoint, keys or presign endpoint); also used for the
        /// warehouses of catalogs the statements create.
        #[serde(default)]
        options: Box<StoreOptions>,
    },
    /// Make the REST catalog service at `address` the current catalog `lakescope` (database
    /// `default`): the catalog the page has open, so the statements commit through it.
    OpenCatalog {
        /// See `Open::id`.
        id: u64,
        /// The service (Paimon REST or Iceberg REST).
        address: CatalogAddress,
        /// Its token or client credential (in this message only: never logged or stored).
        #[serde(default)]
        secrets: CatalogSecrets,
        /// How to reach the tables' stores (S3 settings), as `Open::options`.
        #[serde(default)]
        options: Box<StoreOptions>,
        /// Table files the catalog places under one location reached at another.
        #[serde(default)]
        served: Option<ServedLocation>,
    },
    /// Run a script of statements.
    Run {
        /// See `Open::id`.
        id: u64,
        /// The statements, `;`-separated.
        sql: String,
        /// Run every statement even after one fails.
        keep_going: bool,
        /// Rows kept per result (the rest are only counted).
        max_rows: usize,
    },
    /// Validate one ALTER TABLE and apply it to its table's current schema without committing
    /// (answered by [`ConsoleEvent::AlterPreview`]).
    PreviewAlter {
        /// See `Open::id`.
        id: u64,
        /// The statement.
        sql: String,
    },
}

/// What the worker tells the page. Externally tagged, serde's default (`"ready"`,
/// `{"done":{"id":3,"failed":1}}`), as are the outcomes inside it: the page parses every event
/// in one pass, where a `tag` field would make serde buffer each message and parse it again
/// per variant, in code generated per type (≈ 29 KB of the page's code, docs/benchmarks.md P5).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ConsoleEvent {
    /// The worker has loaded and takes requests.
    Ready,
    /// One statement finished.
    Statement {
        /// The request.
        id: u64,
        /// What the statement did.
        report: StatementReport,
        /// Milliseconds it took.
        millis: f64,
    },
    /// A request finished.
    Done {
        /// The request.
        id: u64,
        /// Statements that failed.
        failed: usize,
    },
    /// A request could not run at all (e.g. the warehouse did not open).
    Failed {
        /// The request.
        id: u64,
        /// Why, in plain words.
        message: String,
    },
    /// The answer to a `PreviewAlter` request (its last event).
    AlterPreview {
        /// The request.
        id: u64,
        /// The schemas, or the error with its position.
        outcome: PreviewOutcome,
    },
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::{ReportColumn, ReportOutcome};
    use crate::upload::protocol::UploadEvent;

    #[test]
    fn requests_are_op_tagged_json() {
        let run: ConsoleRequest = serde_json::from_str(
            r#"{"op":"run","id":3,"sql":"SHOW TABLES","keep_going":false,"max_rows":100}"#,
        )
        .expect("run request");
        assert_eq!(
            run,
            ConsoleRequest::Run {
                id: 3,
                sql: "SHOW TABLES".into(),
                keep_going: false,
                max_rows: 100
            }
        );
        let open: ConsoleRequest =
            serde_json::from_str(r#"{"op":"open","id":1,"uri":"opfs://lake"}"#).expect("open");
        assert!(
            matches!(open, ConsoleRequest::Open { options, .. } if options.credentials.is_none())
        );
        let open_catalog: ConsoleRequest = serde_json::from_str(
            r#"{"op":"open_catalog","id":2,"address":{"PaimonRest":{"uri":"http://127.0.0.1:1","warehouse":"wh"}},"secrets":{"token":"sekrit","credential":null}}"#,
        )
        .expect("open_catalog");
        let ConsoleRequest::OpenCatalog {
            address,
            secrets,
            served,
            ..
        } = &open_catalog
        else {
            panic!("{open_catalog:?}");
        };
        assert_eq!(
            address,
            &CatalogAddress::parse("paimon+rest://127.0.0.1:1/wh").expect("address")
        );
        assert_eq!(secrets.token.as_deref(), Some("sekrit"));
        assert!(served.is_none());
        assert!(
            !format!("{open_catalog:?}").contains("sekrit"),
            "Debug hides the secrets"
        );
    }

    #[test]
    fn events_are_externally_tagged_json() {
        let ready = serde_json::to_string(&ConsoleEvent::Ready).expect("json");
        assert_eq!(ready, r#""ready""#);
        let done = serde_json::to_string(&ConsoleEvent::Done { id: 3, failed: 1 }).expect("json");
        assert_eq!(done, r#"{"done":{"id":3,"failed":1}}"#);
        let statement = ConsoleEvent::Statement {
            id: 4,
            report: StatementReport {
                number: 1,
                line: 1,
                column: 1,
                text: "SELECT 1".into(),
                outcome: ReportOutcome::Rows {
                    columns: vec![ReportColumn {
                        name: "EXPR$0".into(),
                        data_type: "Int32".into(),
                    }],
                    rows: vec![vec![Some("1".into())], vec![None]],
                    total_rows: 2,
                },
            },
            millis: 1.5,
        };
        let json = serde_json::to_value(&statement).expect("json");
        assert_eq!(
            json["statement"]["report"]["outcome"]["rows"]["rows"],
            serde_json::json!([["1"], [null]])
        );
        assert_eq!(
            serde_json::from_value::<ConsoleEvent>(json).expect("statement"),
            statement
        );
        let preview: ConsoleEvent = serde_json::from_str(
            r#"{"alter_preview":{"id":5,"outcome":{"error":{"line":1,"column":13,"message":"no such column"}}}}"#,
        )
        .expect("alter_preview");
        assert_eq!(
            preview,
            ConsoleEvent::AlterPreview {
                id: 5,
                outcome: PreviewOutcome::Error {
                    line: 1,
                    column: 13,
                    message: "no such column".into()
                }
            }
        );
        assert!(
            serde_json::from_str::<ConsoleEvent>(r#"{"event":"done","id":3,"failed":1}"#).is_err(),
            "the field-tagged shape is refused, not read as another event"
        );
    }

    #[test]
    fn events_are_not_upload_events() {
        // The page offers each worker message to the upload first (`UploadEvent`), then parses
        // it as a console event: no console event may read as an upload event.
        let events = [
            ConsoleEvent::Ready,
            ConsoleEvent::Done { id: 1, failed: 0 },
            ConsoleEvent::Failed {
                id: 1,
                message: "m".into(),
            },
        ];
        for event in events {
            let text = serde_json::to_string(&event).expect("json");
            assert!(
                serde_json::from_str::<UploadEvent>(&text).is_err(),
                "{text} reads as an upload event"
            );
        }
    }
}
