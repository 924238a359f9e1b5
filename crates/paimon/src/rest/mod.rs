//! Paimon's REST catalog protocol (`rest-catalog-open-api.yaml`): configuration, databases,
//! tables, table load, data tokens, snapshot commits ([`commit`]), tags ([`tags`]) and schema
//! changes ([`schema_changes`]), over lakescope's
//! [`HttpTransport`].
//!
//! A table of a REST catalog is a folder like any other (its `path`); the catalog names it,
//! tells where it is and may vend short-lived storage credentials for it (a *data token*).

mod commit;
mod ddl;
mod schema_changes;
mod tags;

pub use commit::RestSnapshotCommit;
pub use schema_changes::{schema_changes, Move, SchemaChange};
pub use tags::RestTagSource;

use crate::{Error, Result};
use lakescope_storage::transport::{HttpRequest, HttpTransport};
use serde::de::{DeserializeOwned, IgnoredAny};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::rc::Rc;

/// The option that makes clients ask for a data token per table (Paimon's
/// `RESTCatalogOptions.DATA_TOKEN_ENABLED`).
pub const DATA_TOKEN_ENABLED: &str = "data-token.enabled";

/// Page size asked of list endpoints (servers may answer fewer).
const PAGE_SIZE: usize = 1000;

/// How to reach a Paimon REST catalog.
#[derive(Clone, Default)]
pub struct RestOptions {
    /// The `warehouse` (catalog name) the server configures the client for.
    pub warehouse: String,
    /// A bearer token sent with every request (`token.provider = bear`).
    pub token: Option<String>,
    /// Client options (overridden by the server's `overrides`).
    pub options: BTreeMap<String, String>,
}

impl std::fmt::Debug for RestOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RestOptions")
            .field("warehouse", &self.warehouse)
            .field("token", &self.token.as_ref().map(|_| "<redacted>"))
            .finish()
    }
}

/// A table as the catalog describes it (`GetTableResponse`, the fields lakescope uses).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RestTable {
    /// The table's uuid in the catalog.
    #[serde(default)]
    pub id: Option<String>,
    /// The table name.
    pub name: String,
    /// Where its files are: an absolute URI (`file:///…`, `s3://…`, `oss://…`).
    pub path: String,
    /// Whether the catalog does not own the files.
    #[serde(default)]
    pub is_external: bool,
    /// The current schema id.
    #[serde(default)]
    pub schema_id: i64,
}

/// Short-lived storage credentials for one table (`GetTableTokenResponse`).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DataToken {
    /// File IO options (e.g. `fs.s3a.access.key`, `fs.oss.accessKeyId`).
    pub token: BTreeMap<String, String>,
    /// When they stop working (epoch milliseconds).
    pub expires_at_millis: i64,
}

#[derive(Deserialize)]
struct ConfigResponse {
    #[serde(default)]
    defaults: BTreeMap<String, String>,
    #[serde(default)]
    overrides: BTreeMap<String, String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ListDatabases {
    #[serde(default)]
    databases: Vec<String>,
    next_page_token: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ListTables {
    #[serde(default)]
    tables: Vec<String>,
    next_page_token: Option<String>,
}

#[derive(Deserialize)]
struct ErrorResponse {
    message: Option<String>,
}

/// A connected Paimon REST catalog.
#[derive(Clone)]
pub struct RestCatalog {
    uri: String,
    prefix: Option<String>,
    token: Option<String>,
    options: BTreeMap<String, String>,
    transport: Rc<dyn HttpTransport>,
}

impl std::fmt::Debug for RestCatalog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RestCatalog")
            .field("uri", &self.uri)
            .field("prefix", &self.prefix)
            .field("token", &self.token.as_ref().map(|_| "<redacted>"))
            .finish()
    }
}

fn encode(s: &str) -> String {
    percent_encoding::utf8_percent_encode(s, percent_encoding::NON_ALPHANUMERIC).to_string()
}

impl RestCatalog {
    /// Connects to the catalog at `uri` (`http(s)://host:port[/base]`): `GET /v1/config` for
    /// the warehouse, then the merged options (the server's defaults, the client's options,
    /// the server's overrides; `prefix` among them).
    pub async fn connect(
        uri: &str,
        options: &RestOptions,
        transport: Rc<dyn HttpTransport>,
    ) -> Result<Self> {
        let mut catalog = Self {
            uri: uri.trim_end_matches('/').to_string(),
            prefix: None,
            token: options.token.clone(),
            options: BTreeMap::new(),
            transport,
        };
        let path = format!("v1/config?warehouse={}", encode(&options.warehouse));
        let config: ConfigResponse = catalog.get(&path).await?;
        let mut merged = config.defaults;
        merged.extend(options.options.clone());
        merged.extend(config.overrides);
        catalog.prefix = merged
            .get("prefix")
            .map(|p| p.trim_matches('/').to_string())
            .filter(|p| !p.is_empty());
        catalog.options = merged;
        Ok(catalog)
    }

    /// The merged catalog options.
    pub fn options(&self) -> &BTreeMap<String, String> {
        &self.options
    }

    /// Whether tables come with data tokens ([`DATA_TOKEN_ENABLED`]).
    pub fn data_token_enabled(&self) -> bool {
        self.options
            .get(DATA_TOKEN_ENABLED)
            .is_some_and(|v| v.eq_ignore_ascii_case("true"))
    }

    fn base(&self) -> String {
        match &self.prefix {
            Some(p) => format!("v1/{}", encode(p)),
            None => "v1".to_string(),
        }
    }

    fn table_path(&self, database: &str, table: &str) -> String {
        format!(
            "{}/databases/{}/tables/{}",
            self.base(),
            encode(database),
            encode(table)
        )
    }

    /// Database names (all pages), sorted.
    pub async fn databases(&self) -> Result<Vec<String>> {
        let path = format!("{}/databases", self.base());
        let mut out = self
            .paged(&path, |page: ListDatabases| {
                (page.databases, page.next_page_token)
            })
            .await?;
        out.sort();
        Ok(out)
    }

    /// Table names of a database (all pages), sorted.
    pub async fn tables(&self, database: &str) -> Result<Vec<String>> {
        let path = format!("{}/databases/{}/tables", self.base(), encode(database));
        let mut out = self
            .paged(&path, |page: ListTables| {
                (page.tables, page.next_page_token)
            })
            .await?;
        out.sort();
        Ok(out)
    }

    /// Loads a table: where it is and its schema id.
    pub async fn table(&self, database: &str, table: &str) -> Result<RestTable> {
        self.get(&self.table_path(database, table)).await
    }

    /// Storage credentials for a table (when [`Self::data_token_enabled`]).
    pub async fn data_token(&self, database: &str, table: &str) -> Result<DataToken> {
        self.get(&format!("{}/token", self.table_path(database, table)))
            .await
    }

    /// Every page of a list endpoint, following `nextPageToken`.
    async fn paged<P: DeserializeOwned>(
        &self,
        path: &str,
        split: impl Fn(P) -> (Vec<String>, Option<String>),
    ) -> Result<Vec<String>> {
        let mut out = Vec::new();
        let mut token: Option<String> = None;
        loop {
            let mut url = format!("{path}?maxResults={PAGE_SIZE}");
            if let Some(t) = &token {
                url.push_str(&format!("&pageToken={}", encode(t)));
            }
            let (items, next) = split(self.get(&url).await?);
            let progressed = !items.is_empty();
            out.extend(items);
            match next.filter(|t| !t.is_empty()) {
                Some(t) if progressed && token.as_deref() != Some(t.as_str()) => token = Some(t),
                Some(t) => {
                    return Err(Error::Catalog {
                        endpoint: format!("GET {}/{path}", self.uri),
                        status: None,
                        message: format!("the page token '{t}' does not advance the listing"),
                    })
                }
                None => return Ok(out),
            }
        }
    }

    /// Sends one GET and decodes the JSON answer (see [`Self::call`]).
    async fn get<T: DeserializeOwned>(&self, path: &str) -> Result<T> {
        self.call("GET", path, None).await
    }

    /// Sends a request whose answer carries nothing to read (create, drop, alter): any JSON
    /// answer, or none, is success, as Paimon's Java client reads no body for these calls.
    async fn send(&self, method: &'static str, path: &str, body: Option<Vec<u8>>) -> Result<()> {
        self.call::<IgnoredAny>(method, path, body)
            .await
            .map(|_| ())
    }

    /// Sends one request (with a JSON `body`) and decodes the JSON answer; errors name the
    /// endpoint, the status and the server's message (`404` → not found).
    async fn call<T: DeserializeOwned>(
        &self,
        method: &'static str,
        path: &str,
        body: Option<Vec<u8>>,
    ) -> Result<T> {
        let url = format!("{}/{path}", self.uri);
        let endpoint = format!("{method} {url}");
        let mut request = HttpRequest::new(method, url).header("accept", "application/json");
        if let Some(body) = body {
            request = request.header("content-type", "application/json");
            request.body = body.into();
        }
        if let Some(t) = &self.token {
            request = request.header("authorization", format!("Bearer {t}"));
        }
        let response = self
            .transport
            .send(request)
            .await
            .map_err(|e| Error::Catalog {
                endpoint: endpoint.clone(),
                status: None,
                message: e.to_string(),
            })?;
        let status = response.status;
        if !(200..300).contains(&status) {
            let message = serde_json::from_slice::<ErrorResponse>(&response.body)
                .ok()
                .and_then(|e| e.message)
                .unwrap_or_else(|| String::from_utf8_lossy(&response.body).trim().to_string());
            return Err(match status {
                404 => Error::NotFound {
                    what: resource(path),
                    context: Some(format!("{endpoint} answered 404: {message}")),
                },
                401 | 403 => Error::Catalog {
                    endpoint,
                    status: Some(status),
                    message: format!("{message} (check the catalog token)"),
                },
                _ => Error::Catalog {
                    endpoint,
                    status: Some(status),
                    message,
                },
            });
        }
        // an empty answer (a create, drop or alter) reads as JSON `null`
        let body: &[u8] = if response.body.is_empty() {
            b"null"
        } else {
            &response.body
        };
        serde_json::from_slice(body).map_err(|e| Error::Catalog {
            endpoint,
            status: Some(status),
            message: format!("not a Paimon REST answer: {e}"),
        })
    }
}

/// What a path names, for a not-found error: `table d.t`, `database d`.
fn resource(path: &str) -> String {
    let decode = |s: &str| {
        percent_encoding::percent_decode_str(s)
            .decode_utf8_lossy()
            .into_owned()
    };
    let parts: Vec<&str> = path.split('?').next().unwrap_or(path).split('/').collect();
    match parts.iter().position(|p| *p == "databases") {
        Some(i) if parts.get(i + 2) == Some(&"tables") && parts.len() > i + 3 => {
            format!("table {}.{}", decode(parts[i + 1]), decode(parts[i + 3]))
        }
        Some(i) if parts.len() > i + 1 => format!("database {}", decode(parts[i + 1])),
        _ => path.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lakescope_storage::transport::CannedTransport;

    fn options() -> RestOptions {
        RestOptions {
            warehouse: "wh".into(),
            token: Some("t".into()),
            options: BTreeMap::new(),
        }
    }

    #[tokio::test]
    async fn follows_pages_under_the_prefix() {
        let t = Rc::new(CannedTransport::new([
            (200, r#"{"defaults":{"prefix":"p"},"overrides":{}}"#),
            (200, r#"{"databases":["b","a"],"nextPageToken":"b"}"#),
            (200, r#"{"databases":["c"],"nextPageToken":null}"#),
        ]));
        let cat = RestCatalog::connect("http://h:1/", &options(), t.clone())
            .await
            .unwrap();
        assert_eq!(cat.databases().await.unwrap(), vec!["a", "b", "c"]);
        let asked = t.asked();
        assert_eq!(asked[0], "http://h:1/v1/config?warehouse=wh");
        assert_eq!(asked[1], "http://h:1/v1/p/databases?maxResults=1000");
        assert_eq!(
            asked[2],
            "http://h:1/v1/p/databases?maxResults=1000&pageToken=b"
        );
    }

    #[tokio::test]
    async fn errors_name_the_endpoint_and_cause() {
        let t = Rc::new(CannedTransport::new([
            (200, r#"{"defaults":{}}"#),
            (500, "boom"),
            (200, "<html>not json</html>"),
            (
                404,
                r#"{"message":"Table d.x does not exist","resourceType":"TABLE","code":404}"#,
            ),
            (200, r#"{"tables":["a"],"nextPageToken":"a"}"#),
            (200, r#"{"tables":["a"],"nextPageToken":"a"}"#),
        ]));
        let cat = RestCatalog::connect("http://h:1", &options(), t)
            .await
            .unwrap();
        let e = cat.databases().await.unwrap_err().to_string();
        assert!(
            e.contains("GET http://h:1/v1/databases") && e.contains("500") && e.contains("boom"),
            "{e}"
        );
        let e = cat.table("d", "t").await.unwrap_err().to_string();
        assert!(
            e.contains("/v1/databases/d/tables/t") && e.contains("not a Paimon REST answer"),
            "{e}"
        );
        let e = cat.table("d", "x").await.unwrap_err();
        assert!(matches!(e, Error::NotFound { .. }), "{e}");
        let e = e.to_string();
        assert!(
            e.starts_with("table d.x not found") && e.contains("Table d.x does not exist"),
            "{e}"
        );
        let e = cat.tables("d").await.unwrap_err().to_string();
        assert!(e.contains("does not advance"), "{e}");
    }

    #[tokio::test]
    async fn garbage_5xx_cut_off_and_silent_answers_name_the_endpoint_and_cause() {
        use lakescope_storage::transport::ReqwestTransport;
        use lakescope_test_support::http_faults::{FaultServer, Reply};
        let cases = [
            (
                Reply::Answer(200, "<html>login</html>".into()),
                "not a Paimon REST answer",
            ),
            (
                Reply::Answer(200, r#"{"databases":7}"#.into()),
                "not a Paimon REST answer",
            ),
            (
                Reply::Answer(502, "bad gateway".into()),
                "answered 502: bad gateway",
            ),
            (
                Reply::Truncated(200, r#"{"databases":["a","b"]}"#.into()),
                "connection failed: error decoding response body",
            ),
            (Reply::Silent, "no response within 300ms"),
        ];
        for (reply, cause) in cases {
            // each call of the catalog meets the fault: list, load, data token
            let mut script = vec![Reply::Answer(200, "{}".into())];
            script.extend([reply.clone(), reply.clone(), reply.clone()]);
            let server = FaultServer::start(script);
            let transport =
                Rc::new(ReqwestTransport::new(std::time::Duration::from_millis(300)).unwrap());
            let cat = RestCatalog::connect(server.url(), &options(), transport)
                .await
                .unwrap();
            let base = server.url();
            let errors = [
                (
                    cat.databases().await.map(|_| ()),
                    format!("GET {base}/v1/databases?maxResults=1000"),
                ),
                (
                    cat.table("d", "t").await.map(|_| ()),
                    format!("GET {base}/v1/databases/d/tables/t"),
                ),
                (
                    cat.data_token("d", "t").await.map(|_| ()),
                    format!("GET {base}/v1/databases/d/tables/t/token"),
                ),
            ];
            for (result, endpoint) in errors {
                let e = result.unwrap_err();
                assert!(matches!(e, Error::Catalog { .. }), "{reply:?}: {e}");
                let e = e.to_string();
                assert!(
                    e.starts_with(&endpoint) && e.contains(cause),
                    "{reply:?}: {e}"
                );
            }
        }
    }
}
