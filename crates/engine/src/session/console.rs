//! The SQL console's messages between the page and the worker that runs its session (plain data, JSON).

use super::{PreviewOutcome, StatementReport};
use crate::{CatalogAddress, CatalogSecrets, ServedLocation};
use lakescope_storage::uri::StoreOptions;
use serde::{Deserialize, Serialize};

/// What the page asks of the worker. Requests run one after another, in order.
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

/// What the worker tells the page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
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

    #[test]
    fn requests_and_events_are_tagged_json() {
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
        let done = serde_json::to_string(&ConsoleEvent::Done { id: 3, failed: 1 }).expect("json");
        assert_eq!(done, r#"{"event":"done","id":3,"failed":1}"#);
    }
}
