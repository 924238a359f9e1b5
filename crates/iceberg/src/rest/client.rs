//! The REST catalog client: configuration, namespaces, tables, load, create and commit over
//! lakescope's [`HttpTransport`] (reqwest natively, fetch in the browser), with a bearer token or
//! OAuth2 client credentials.

use super::oauth::{ClientCredentials, DEFAULT_SCOPE};
use super::types::{
    CommitTableRequest, CommitTableResponse, ConfigResponse, CreateNamespaceRequest,
    CreateTableRequest, ErrorResponse, ListNamespacesResponse, ListTablesResponse, LoadTableResult,
};
use crate::{Error, Result};
use lakescope_storage::clock::{system_clock, Clock};
use lakescope_storage::transport::{may_have_applied, HttpRequest, HttpResponse, HttpTransport};
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::collections::BTreeMap;
use std::rc::Rc;

/// Options a client is created with (`uri` is separate).
#[derive(Clone, Default)]
pub struct RestOptions {
    /// The `warehouse` the server is asked to configure the client for.
    pub warehouse: Option<String>,
    /// A bearer token sent with every request.
    pub token: Option<String>,
    /// OAuth2 client credentials `ID:SECRET` (or a bare secret), exchanged for the bearer token
    /// at the token endpoint (`oauth2-server-uri`, default `{uri}/v1/oauth/tokens`; `scope`,
    /// default `catalog`, among the properties).
    pub credential: Option<String>,
    /// Other catalog properties (overridden by the server's `overrides`).
    pub properties: BTreeMap<String, String>,
    /// The clock OAuth2 tokens expire on (default: the system clock).
    pub clock: Option<Clock>,
}

impl std::fmt::Debug for RestOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let redacted = |s: &Option<String>| s.as_ref().map(|_| "<redacted>");
        f.debug_struct("RestOptions")
            .field("warehouse", &self.warehouse)
            .field("token", &redacted(&self.token))
            .field("credential", &redacted(&self.credential))
            .field("properties", &self.properties)
            .finish()
    }
}

/// The property naming the OAuth2 token endpoint (iceberg-java's `OAuth2Properties`).
pub const OAUTH2_SERVER_URI: &str = "oauth2-server-uri";
/// The property naming the OAuth2 scope.
pub const SCOPE: &str = "scope";

/// The outcome of a commit request.
#[derive(Debug)]
pub enum CommitOutcome {
    /// Applied: the new metadata.
    Committed(CommitTableResponse),
    /// `409`: a requirement no longer holds (another writer committed first); the server's message.
    Conflict(String),
}

/// A connected REST catalog.
#[derive(Clone)]
pub struct RestClient {
    uri: String,
    prefix: Option<String>,
    token: Option<String>,
    oauth: Option<Rc<ClientCredentials>>,
    properties: BTreeMap<String, String>,
    transport: Rc<dyn HttpTransport>,
}

impl std::fmt::Debug for RestClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RestClient")
            .field("uri", &self.uri)
            .field("prefix", &self.prefix)
            .field("token", &self.token.as_ref().map(|_| "<redacted>"))
            .finish()
    }
}

/// A namespace as one path segment: levels joined by the unit separator, percent-encoded.
pub fn namespace_segment(namespace: &[String]) -> String {
    encode(&namespace.join("\u{1f}"))
}

/// A namespace name (`a.b`) as levels.
pub fn namespace_levels(namespace: &str) -> Vec<String> {
    namespace.split('.').map(str::to_string).collect()
}

fn encode(s: &str) -> String {
    percent_encoding::utf8_percent_encode(s, percent_encoding::NON_ALPHANUMERIC).to_string()
}

impl RestClient {
    /// Connects to the catalog at `uri`: `GET /v1/config` and the merged properties (the
    /// server's defaults, then `options`, then the server's overrides; `prefix` among them).
    /// With a credential, every request carries the OAuth2 token it is exchanged for.
    pub async fn connect(
        uri: &str,
        options: &RestOptions,
        transport: Rc<dyn HttpTransport>,
    ) -> Result<Self> {
        let uri = uri.trim_end_matches('/').to_string();
        let oauth = options.credential.as_deref().map(|credential| {
            let property = |k: &str| options.properties.get(k).filter(|v| !v.is_empty());
            let endpoint = property(OAUTH2_SERVER_URI)
                .cloned()
                .unwrap_or_else(|| format!("{uri}/v1/oauth/tokens"));
            let scope = property(SCOPE).map_or(DEFAULT_SCOPE, String::as_str);
            let clock = options.clock.clone().unwrap_or_else(system_clock);
            Rc::new(ClientCredentials::new(
                credential,
                endpoint,
                scope.to_string(),
                clock,
            ))
        });
        let mut client = Self {
            uri,
            prefix: None,
            token: options.token.clone(),
            oauth,
            properties: BTreeMap::new(),
            transport,
        };
        let path = match &options.warehouse {
            Some(w) => format!("v1/config?warehouse={}", encode(w)),
            None => "v1/config".to_string(),
        };
        let config: ConfigResponse = client.call("GET", &path, None::<&()>).await?;
        let mut properties = config.defaults;
        properties.extend(options.properties.clone());
        properties.extend(config.overrides);
        client.prefix = properties
            .get("prefix")
            .map(|p| p.trim_matches('/').to_string())
            .filter(|p| !p.is_empty());
        if client.token.is_none() {
            client.token = properties.get("token").cloned();
        }
        client.properties = properties;
        Ok(client)
    }

    /// The merged catalog properties.
    pub fn properties(&self) -> &BTreeMap<String, String> {
        &self.properties
    }

    fn base(&self) -> String {
        match &self.prefix {
            Some(p) => format!("v1/{p}"),
            None => "v1".to_string(),
        }
    }

    fn table_path(&self, namespace: &[String], table: &str) -> String {
        format!(
            "{}/namespaces/{}/tables/{}",
            self.base(),
            namespace_segment(namespace),
            encode(table)
        )
    }

    /// Top-level namespaces (all pages), each as its levels.
    pub async fn list_namespaces(&self) -> Result<Vec<Vec<String>>> {
        let mut out = Vec::new();
        let mut token: Option<String> = None;
        loop {
            let mut path = format!("{}/namespaces", self.base());
            if let Some(t) = &token {
                path.push_str(&format!("?pageToken={}", encode(t)));
            }
            let page: ListNamespacesResponse = self.call("GET", &path, None::<&()>).await?;
            out.extend(page.namespaces);
            match page.next_page_token {
                Some(t) if !t.is_empty() => token = Some(t),
                _ => return Ok(out),
            }
        }
    }

    /// Creates a namespace.
    pub async fn create_namespace(&self, namespace: &[String]) -> Result<()> {
        let body = CreateNamespaceRequest {
            namespace: namespace.to_vec(),
            properties: BTreeMap::new(),
        };
        let path = format!("{}/namespaces", self.base());
        let _: serde_json::Value = self.call("POST", &path, Some(&body)).await?;
        Ok(())
    }

    /// The table names of a namespace (all pages).
    pub async fn list_tables(&self, namespace: &[String]) -> Result<Vec<String>> {
        let mut out = Vec::new();
        let mut token: Option<String> = None;
        loop {
            let mut path = format!(
                "{}/namespaces/{}/tables",
                self.base(),
                namespace_segment(namespace)
            );
            if let Some(t) = &token {
                path.push_str(&format!("?pageToken={}", encode(t)));
            }
            let page: ListTablesResponse = self.call("GET", &path, None::<&()>).await?;
            out.extend(page.identifiers.into_iter().map(|i| i.name));
            match page.next_page_token {
                Some(t) if !t.is_empty() => token = Some(t),
                _ => return Ok(out),
            }
        }
    }

    /// Loads a table: metadata location, metadata and config (vended credentials).
    pub async fn load_table(&self, namespace: &[String], table: &str) -> Result<LoadTableResult> {
        self.call("GET", &self.table_path(namespace, table), None::<&()>)
            .await
    }

    /// Creates a table.
    pub async fn create_table(
        &self,
        namespace: &[String],
        request: &CreateTableRequest,
    ) -> Result<LoadTableResult> {
        let path = format!(
            "{}/namespaces/{}/tables",
            self.base(),
            namespace_segment(namespace)
        );
        self.call("POST", &path, Some(request)).await
    }

    /// Drops an empty namespace (`DELETE …/namespaces/{ns}`).
    pub async fn drop_namespace(&self, namespace: &[String]) -> Result<()> {
        let path = format!(
            "{}/namespaces/{}",
            self.base(),
            namespace_segment(namespace)
        );
        let _: serde_json::Value = self.call("DELETE", &path, None::<&()>).await?;
        Ok(())
    }

    /// Drops a table (`DELETE …/namespaces/{ns}/tables/{t}`, without purging its files).
    pub async fn drop_table(&self, namespace: &[String], table: &str) -> Result<()> {
        let _: serde_json::Value = self
            .call("DELETE", &self.table_path(namespace, table), None::<&()>)
            .await?;
        Ok(())
    }

    /// Commits requirements and updates to a table (`updateTable`). A `409` is a
    /// [`CommitOutcome::Conflict`] (nothing applied; the writer plans again). A `5xx` other than
    /// `501`, a failed connection or a garbled answer is [`Error::CommitStateUnknown`]: the
    /// server may have applied the commit. Any other refusal names the endpoint and the table
    /// and says nothing was committed.
    pub async fn commit_table(&self, request: &CommitTableRequest) -> Result<CommitOutcome> {
        let id = &request.identifier;
        let table = format!("{}.{}", id.namespace.join("."), id.name);
        let path = self.table_path(&id.namespace, &id.name);
        match self.call("POST", &path, Some(request)).await {
            Ok(r) => Ok(CommitOutcome::Committed(r)),
            Err(Error::Conflict { reason, .. }) => Ok(CommitOutcome::Conflict(reason)),
            Err(Error::Catalog {
                endpoint,
                status,
                message,
            }) if may_have_applied(status) => {
                let answer = status.map_or_else(String::new, |s| format!(" answered {s}"));
                Err(Error::CommitStateUnknown {
                    table,
                    cause: format!("{endpoint}{answer}: {message}"),
                })
            }
            Err(Error::Catalog {
                endpoint,
                status,
                message,
            }) => Err(Error::Catalog {
                endpoint,
                status,
                message: format!("committing to table {table}: {message} (nothing was committed)"),
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

    /// Sends one request and decodes the JSON answer; errors name the endpoint, the status and
    /// the server's message (`404` → not found, `409` → conflict).
    ///
    /// With OAuth2 client credentials, a `401` (the token expired or was revoked early) makes the
    /// client exchange its credential again and send the request once more; a second `401` is an
    /// error naming the endpoint. This holds for commits too: the spec's `401`
    /// (`UnauthorizedResponse`) rejects a request before it is processed, so nothing was applied
    /// (only a `5xx` leaves a commit's state unknown), and a replayed commit carries its
    /// requirements, so it could never apply twice.
    async fn call<B: Serialize, T: DeserializeOwned>(
        &self,
        method: &'static str,
        path: &str,
        body: Option<&B>,
    ) -> Result<T> {
        let endpoint = format!("{method} {}/{path}", self.uri);
        let json =
            match body {
                Some(b) => Some(serde_json::to_vec(b).map_err(|e| {
                    Error::Invalid(format!("{endpoint}: encoding the request: {e}"))
                })?),
                None => None,
            };
        let mut response = self.send(method, path, json.as_deref(), &endpoint).await?;
        let mut renewed = false;
        if response.status == 401 {
            if let Some(oauth) = &self.oauth {
                oauth.forget();
                response = self.send(method, path, json.as_deref(), &endpoint).await?;
                renewed = true;
            }
        }
        let status = response.status;
        if !(200..300).contains(&status) {
            let message = serde_json::from_slice::<ErrorResponse>(&response.body)
                .map(|e| format!("{}: {}", e.error.kind, e.error.message))
                .unwrap_or_else(|_| String::from_utf8_lossy(&response.body).trim().to_string());
            let detail = format!("{endpoint} answered {status}: {message}");
            return Err(match status {
                404 => Error::not_found(path_what(path), Some(detail)),
                409 => Error::Conflict {
                    table: endpoint,
                    reason: format!("{status}: {message}"),
                },
                401 if renewed => Error::Catalog {
                    endpoint,
                    status: Some(status),
                    message: format!(
                        "{message} (refused again with a freshly exchanged OAuth2 token; check the catalog credential and its scope)"
                    ),
                },
                _ => Error::Catalog {
                    endpoint,
                    status: Some(status),
                    message,
                },
            });
        }
        let body: &[u8] = if response.body.is_empty() {
            b"null"
        } else {
            &response.body
        };
        serde_json::from_slice(body).map_err(|e| Error::Catalog {
            endpoint,
            status: Some(status),
            message: format!("unexpected answer: {e}"),
        })
    }
}

impl RestClient {
    /// Sends one request to `path` with the current token (exchanged first when due) and a
    /// JSON `body`; a failed connection names the endpoint.
    async fn send(
        &self,
        method: &'static str,
        path: &str,
        body: Option<&[u8]>,
        endpoint: &str,
    ) -> Result<HttpResponse> {
        let mut request = HttpRequest::new(method, format!("{}/{path}", self.uri))
            .header("accept", "application/json");
        let token = match &self.oauth {
            Some(oauth) => Some(oauth.token(self.transport.as_ref()).await?),
            None => self.token.clone(),
        };
        if let Some(t) = token {
            request = request.header("authorization", format!("Bearer {t}"));
        }
        if let Some(b) = body {
            request = request.header("content-type", "application/json");
            request.body = b.to_vec().into();
        }
        self.transport
            .send(request)
            .await
            .map_err(|e| Error::Catalog {
                endpoint: endpoint.to_string(),
                status: None,
                message: e.to_string(),
            })
    }
}

/// What a path asks for, for a not-found error (`table ns.t`, `namespace ns`).
fn path_what(path: &str) -> String {
    let decode = |s: &str| {
        percent_encoding::percent_decode_str(s)
            .decode_utf8_lossy()
            .replace('\u{1f}', ".")
    };
    let parts: Vec<&str> = path.split('?').next().unwrap_or(path).split('/').collect();
    match parts.iter().position(|p| *p == "namespaces") {
        Some(i) if parts.len() > i + 3 => {
            format!("table {}.{}", decode(parts[i + 1]), decode(parts[i + 3]))
        }
        Some(i) if parts.len() > i + 1 => format!("namespace {}", decode(parts[i + 1])),
        _ => path.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lakescope_storage::transport::CannedTransport;
    use std::cell::Cell;
    use std::time::{Duration, SystemTime};

    /// A clock at `secs` seconds after the epoch, moved by the test.
    fn clock(secs: &Rc<Cell<u64>>) -> Clock {
        let secs = secs.clone();
        Rc::new(move || SystemTime::UNIX_EPOCH + Duration::from_secs(secs.get()))
    }

    fn bearer(r: &HttpRequest) -> Option<&str> {
        r.headers
            .iter()
            .find(|(k, _)| k == "authorization")
            .map(|(_, v)| v.as_str())
    }

    #[tokio::test]
    async fn client_credentials_are_exchanged_for_a_token_refreshed_before_it_expires() {
        let now = Rc::new(Cell::new(1_000));
        let transport = Rc::new(CannedTransport::new([
            (
                200,
                r#"{"access_token":"tok1","token_type":"bearer","expires_in":3600}"#,
            ),
            (200, r#"{"defaults":{}}"#),
            (200, r#"{"namespaces":[]}"#),
            (
                200,
                r#"{"access_token":"tok2","token_type":"bearer","expires_in":3600}"#,
            ),
            (200, r#"{"namespaces":[]}"#),
        ]));
        let options = RestOptions {
            credential: Some("lake id:s3cr=t/&".into()),
            clock: Some(clock(&now)),
            ..RestOptions::default()
        };
        let client = RestClient::connect("http://cat/api", &options, transport.clone())
            .await
            .unwrap();
        // refreshed five minutes before it expires (a tenth of its lifetime, at most 5 minutes)
        now.set(1_000 + 3600 - 300 - 1);
        client.list_namespaces().await.unwrap();
        now.set(1_000 + 3600 - 300);
        client.list_namespaces().await.unwrap();
        let sent = transport.sent();
        let urls: Vec<_> = sent.iter().map(|r| (r.method, r.url.as_str())).collect();
        assert_eq!(
            urls,
            vec![
                ("POST", "http://cat/api/v1/oauth/tokens"),
                ("GET", "http://cat/api/v1/config"),
                ("GET", "http://cat/api/v1/namespaces"),
                ("POST", "http://cat/api/v1/oauth/tokens"),
                ("GET", "http://cat/api/v1/namespaces"),
            ]
        );
        assert_eq!(
            std::str::from_utf8(&sent[0].body).unwrap(),
            "grant_type=client_credentials&client_id=lake+id&client_secret=s3cr%3Dt%2F%26&scope=catalog"
        );
        assert_eq!(
            sent[0]
                .headers
                .iter()
                .find(|(k, _)| k == "content-type")
                .map(|(_, v)| v.as_str()),
            Some("application/x-www-form-urlencoded")
        );
        assert_eq!(
            bearer(&sent[0]),
            None,
            "the credential goes in the form only"
        );
        let tokens: Vec<_> = [1, 2, 4].iter().map(|&i| bearer(&sent[i])).collect();
        assert_eq!(
            tokens,
            vec![
                Some("Bearer tok1"),
                Some("Bearer tok1"),
                Some("Bearer tok2")
            ]
        );
    }

    #[tokio::test]
    async fn the_token_endpoint_and_scope_can_be_set_and_a_refusal_names_it() {
        let transport = Rc::new(CannedTransport::new([(
            401,
            r#"{"error":"invalid_client","error_description":"unknown client"}"#,
        )]));
        let options = RestOptions {
            credential: Some("secret-only".into()),
            properties: [
                (
                    OAUTH2_SERVER_URI.to_string(),
                    "https://idp/token".to_string(),
                ),
                (SCOPE.to_string(), "PRINCIPAL_ROLE:ALL".to_string()),
            ]
            .into(),
            ..RestOptions::default()
        };
        let e = RestClient::connect("http://cat", &options, transport.clone())
            .await
            .unwrap_err();
        let text = e.to_string();
        assert!(
            matches!(
                e,
                Error::Catalog {
                    status: Some(401),
                    ..
                }
            ) && text
                .starts_with("POST https://idp/token answered 401: invalid_client: unknown client")
                && text.contains("check the catalog credential"),
            "{text}"
        );
        let sent = transport.sent();
        assert_eq!(
            std::str::from_utf8(&sent[0].body).unwrap(),
            "grant_type=client_credentials&client_secret=secret-only&scope=PRINCIPAL_ROLE%3AALL"
        );
    }

    #[tokio::test]
    async fn a_refused_token_is_exchanged_again_and_the_request_sent_once_more() {
        use super::super::types::TableIdentifier;
        use lakescope_storage::transport::ReqwestTransport;
        use lakescope_test_support::http_faults::{FaultServer, Reply};
        let token = |t: &str| {
            Reply::Answer(
                200,
                format!(r#"{{"access_token":"{t}","token_type":"bearer","expires_in":3600}}"#),
            )
        };
        let refused = || {
            Reply::Answer(
                401,
                r#"{"error":{"message":"token expired","type":"NotAuthorizedException","code":401}}"#
                    .into(),
            )
        };
        let server = FaultServer::start(vec![
            token("tok1"),
            Reply::Answer(200, r#"{"defaults":{}}"#.into()),
            // a read: refused, a new token, sent again
            refused(),
            token("tok2"),
            Reply::Answer(200, r#"{"namespaces":[["a"]]}"#.into()),
            // a commit: refused before it was applied, so sent again with a new token
            refused(),
            token("tok3"),
            Reply::Answer(
                200,
                r#"{"metadata-location":"file:///w/t/metadata/v2.metadata.json","metadata":{}}"#
                    .into(),
            ),
            // refused again with a fresh token: an error naming the endpoint
            refused(),
            token("tok4"),
            refused(),
        ]);
        let transport = Rc::new(ReqwestTransport::new(Duration::from_secs(5)).unwrap());
        let options = RestOptions {
            credential: Some("id:secret".into()),
            ..RestOptions::default()
        };
        let client = RestClient::connect(server.url(), &options, transport)
            .await
            .unwrap();
        assert_eq!(
            client.list_namespaces().await.unwrap(),
            vec![vec!["a".to_string()]]
        );
        let commit = CommitTableRequest {
            identifier: TableIdentifier {
                namespace: vec!["a".into()],
                name: "t".into(),
            },
            requirements: Vec::new(),
            updates: Vec::new(),
        };
        let outcome = client.commit_table(&commit).await.unwrap();
        assert!(
            matches!(&outcome, CommitOutcome::Committed(r) if r.metadata_location.ends_with("v2.metadata.json")),
            "{outcome:?}"
        );
        let e = client.list_tables(&["a".into()]).await.unwrap_err();
        let text = e.to_string();
        let url = server.url();
        assert!(
            matches!(
                e,
                Error::Catalog {
                    status: Some(401),
                    ..
                }
            ) && text.starts_with(&format!("GET {url}/v1/namespaces/a/tables answered 401"))
                && text.contains("token expired")
                && text.contains("freshly exchanged OAuth2 token"),
            "{text}"
        );
        let sent: Vec<(String, String, Option<String>)> = server
            .requests()
            .iter()
            .map(|r| {
                let bearer = r.header("authorization").map(String::from);
                (r.method.clone(), r.target.clone(), bearer)
            })
            .collect();
        let b = |t: &str| Some(format!("Bearer {t}"));
        let tokens = ("POST".to_string(), "/v1/oauth/tokens".to_string(), None);
        let table = "/v1/namespaces/a/tables/t".to_string();
        let tables = "/v1/namespaces/a/tables".to_string();
        assert_eq!(
            sent,
            vec![
                tokens.clone(),
                ("GET".into(), "/v1/config".into(), b("tok1")),
                ("GET".into(), "/v1/namespaces".into(), b("tok1")),
                tokens.clone(),
                ("GET".into(), "/v1/namespaces".into(), b("tok2")),
                ("POST".into(), table.clone(), b("tok2")),
                tokens.clone(),
                ("POST".into(), table, b("tok3")),
                ("GET".into(), tables.clone(), b("tok3")),
                tokens,
                ("GET".into(), tables, b("tok4")),
            ]
        );
    }

    #[test]
    fn options_never_print_secrets() {
        let options = RestOptions {
            token: Some("tok".into()),
            credential: Some("id:secret".into()),
            ..RestOptions::default()
        };
        let shown = format!("{options:?}");
        assert!(
            !shown.contains("tok\"") && !shown.contains("secret"),
            "{shown}"
        );
    }
}
