//! OAuth2 client credentials for an Iceberg REST catalog (the spec's `POST /v1/oauth/tokens`,
//! as iceberg-java's `OAuth2Util` and pyiceberg send it): a `credential` `ID:SECRET` is exchanged
//! for an access token, fetched again before its `expires_in` runs out, or after the service
//! refused it (`401`, see `RestClient::call`).

use crate::{Error, Result};
use lakescope_storage::clock::{epoch_millis, Clock};
use lakescope_storage::transport::{HttpRequest, HttpTransport};
use serde::Deserialize;
use std::cell::RefCell;

/// The scope asked for when none is configured (iceberg-java's `OAuth2Properties.CATALOG_SCOPE`).
pub const DEFAULT_SCOPE: &str = "catalog";

/// The most time before expiry a token is refreshed (iceberg-java's `AuthSession`: a tenth of the
/// token's lifetime, at most five minutes).
const MAX_REFRESH_WINDOW_MILLIS: i64 = 5 * 60 * 1000;

/// The token endpoint's answer (RFC 6749 §5.1, the fields lakescope uses).
#[derive(Deserialize)]
struct TokenResponse {
    access_token: String,
    #[serde(default)]
    expires_in: Option<i64>,
}

/// The token endpoint's refusal (RFC 6749 §5.2).
#[derive(Deserialize)]
struct OAuthError {
    error: String,
    #[serde(default)]
    error_description: Option<String>,
}

/// An access token and when to fetch the next one (`None`: it does not expire).
struct Token {
    access: String,
    refresh_at: Option<i64>,
}

/// The client-credentials session of one catalog client.
pub(crate) struct ClientCredentials {
    endpoint: String,
    client_id: Option<String>,
    client_secret: String,
    scope: String,
    clock: Clock,
    current: RefCell<Option<Token>>,
}

impl ClientCredentials {
    /// A session posting `credential` (`ID:SECRET`, or a bare secret) to `endpoint` (a URL).
    pub(crate) fn new(credential: &str, endpoint: String, scope: String, clock: Clock) -> Self {
        let (client_id, client_secret) = match credential.split_once(':') {
            Some((id, secret)) => (Some(id.to_string()), secret.to_string()),
            None => (None, credential.to_string()),
        };
        Self {
            endpoint,
            client_id,
            client_secret,
            scope,
            clock,
            current: RefCell::new(None),
        }
    }

    /// The access token to send: the current one, or a new one once the refresh time passed.
    pub(crate) async fn token(&self, transport: &dyn HttpTransport) -> Result<String> {
        let now = epoch_millis(&self.clock);
        if let Some(t) = self.current.borrow().as_ref() {
            if t.refresh_at.is_none_or(|at| now < at) {
                return Ok(t.access.clone());
            }
        }
        let fetched = self.fetch(transport, now).await?;
        let access = fetched.access.clone();
        *self.current.borrow_mut() = Some(fetched);
        Ok(access)
    }

    /// Drops the current token (the service refused it): the next request exchanges the
    /// credential again.
    pub(crate) fn forget(&self) {
        *self.current.borrow_mut() = None;
    }

    /// `POST` the form `grant_type=client_credentials&client_id=…&client_secret=…&scope=…`.
    async fn fetch(&self, transport: &dyn HttpTransport, now: i64) -> Result<Token> {
        let endpoint = format!("POST {}", self.endpoint);
        let mut form = vec![("grant_type", "client_credentials")];
        if let Some(id) = &self.client_id {
            form.push(("client_id", id));
        }
        form.push(("client_secret", &self.client_secret));
        form.push(("scope", &self.scope));
        let body = form
            .iter()
            .map(|(k, v)| format!("{k}={}", form_encode(v)))
            .collect::<Vec<_>>()
            .join("&");
        let mut request = HttpRequest::new("POST", self.endpoint.clone())
            .header("accept", "application/json")
            .header("content-type", "application/x-www-form-urlencoded");
        request.body = body.into_bytes().into();
        let response = transport.send(request).await.map_err(|e| Error::Catalog {
            endpoint: endpoint.clone(),
            status: None,
            message: format!("fetching an OAuth2 token: {e}"),
        })?;
        let status = response.status;
        if !(200..300).contains(&status) {
            let message = serde_json::from_slice::<OAuthError>(&response.body)
                .map(|e| match e.error_description {
                    Some(d) => format!("{}: {d}", e.error),
                    None => e.error,
                })
                .unwrap_or_else(|_| String::from_utf8_lossy(&response.body).trim().to_string());
            return Err(Error::Catalog {
                endpoint,
                status: Some(status),
                message: format!("{message} (check the catalog credential)"),
            });
        }
        let token: TokenResponse =
            serde_json::from_slice(&response.body).map_err(|e| Error::Catalog {
                endpoint,
                status: Some(status),
                message: format!("not an OAuth2 token answer: {e}"),
            })?;
        let refresh_at = token.expires_in.map(|secs| {
            let lifetime = secs.saturating_mul(1000);
            now + lifetime - (lifetime / 10).min(MAX_REFRESH_WINDOW_MILLIS)
        });
        Ok(Token {
            access: token.access_token,
            refresh_at,
        })
    }
}

/// The bytes a form value keeps as they are: `A-Za-z0-9*-._` (as Java's `URLEncoder`).
const FORM: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'*')
    .remove(b'-')
    .remove(b'.')
    .remove(b'_');

/// A form value, `application/x-www-form-urlencoded` (a space as `+`).
fn form_encode(value: &str) -> String {
    // A literal `%` is escaped too, so every `%20` is a space.
    percent_encoding::utf8_percent_encode(value, FORM)
        .to_string()
        .replace("%20", "+")
}
