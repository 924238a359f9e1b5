//! Presigned URLs: the client that asks a presign endpoint, and the reference signer behind one.
//!
//! Contract: `GET <endpoint>?method=GET|HEAD|PUT|DELETE|LIST&key=<full bucket key>` answers `200`
//! with the presigned URL as `text/plain`. For `LIST`, `key` is a key prefix and the URL is a
//! ListObjectsV2 request (`list-type=2`, `delimiter=/`) for it; an optional `continuation-token`
//! parameter is signed into the URL. A `4xx` answer carries a one-line reason.

use super::{presign_url, S3Auth, S3Config};
use crate::retry::{transport_error, Attempt, Sender};
use crate::transport::http_store::classify_status;
use crate::transport::HttpRequest;
use crate::{Error, Result};
use std::time::{Duration, SystemTime};

/// Asks a presign endpoint for URLs; credentials never reach this side.
#[derive(Clone)]
pub struct Presigner {
    endpoint: String,
    sender: Sender,
}

impl Presigner {
    /// A client of `endpoint` (e.g. `http://127.0.0.1:8787/presign`).
    pub fn new(endpoint: &str, sender: Sender) -> Self {
        Self {
            endpoint: endpoint.trim().to_string(),
            sender,
        }
    }

    /// The presigned URL for `method` on the full bucket `key`.
    pub async fn url(&self, method: &str, key: &str, token: Option<&str>) -> Result<String> {
        let mut url = format!(
            "{}{}method={method}&key={}",
            self.endpoint,
            if self.endpoint.contains('?') {
                "&"
            } else {
                "?"
            },
            super::encode_query(key)
        );
        if let Some(token) = token {
            url.push_str("&continuation-token=");
            url.push_str(&super::encode_query(token));
        }
        self.sender
            .run(|_| {
                let request = HttpRequest::new("GET", url.clone());
                async move {
                    let response = match self.sender.send_once(request).await {
                        Ok(r) => r,
                        Err(e) => return Attempt::Retry(transport_error("presign", key, e)),
                    };
                    let hint = |r: &crate::transport::HttpResponse| {
                        format!(
                            "the presign endpoint refused {method} (HTTP {}: {}); check its \
                             credentials and that it allows this origin via CORS",
                            r.status,
                            String::from_utf8_lossy(&r.body).trim()
                        )
                    };
                    if let Some(done) = classify_status("presign", key, &response, &hint) {
                        return match done {
                            // The endpoint answers 404 for nothing; a 4xx is its reason.
                            Attempt::Done(Err(Error::NotFound { path })) => {
                                Attempt::Done(Err(Error::Io {
                                    operation: "presign",
                                    path,
                                    message: "the presign endpoint answered 404: check its URL"
                                        .to_string(),
                                }))
                            }
                            other => other,
                        };
                    }
                    let text = String::from_utf8_lossy(&response.body).trim().to_string();
                    if !(text.starts_with("http://") || text.starts_with("https://")) {
                        return Attempt::Done(Err(Error::Io {
                            operation: "presign",
                            path: key.to_string(),
                            message: "the presign endpoint did not answer with a URL".to_string(),
                        }));
                    }
                    Attempt::Done(Ok(text))
                }
            })
            .await
    }
}

/// The reference signer: answers presign queries for one bucket with the given keys.
pub struct PresignService {
    config: S3Config,
    /// Only keys below this prefix are signed (empty: the whole bucket).
    allowed_prefix: String,
    expires: Duration,
}

impl PresignService {
    /// A signer for `config` (whose auth must be [`S3Auth::Keys`]).
    pub fn new(config: S3Config, allowed_prefix: &str, expires: Duration) -> Result<Self, String> {
        if !matches!(config.auth, S3Auth::Keys(_)) {
            return Err(
                "the presign server needs AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY".to_string(),
            );
        }
        Ok(Self {
            config,
            allowed_prefix: allowed_prefix.trim_start_matches('/').to_string(),
            expires,
        })
    }

    /// Answers a query string (`method=...&key=...`): the URL, or a status and reason.
    pub fn answer(&self, query: &str, now: SystemTime) -> Result<String, (u16, String)> {
        let mut method = None;
        let mut key = None;
        let mut token = None;
        for pair in query.split('&').filter(|p| !p.is_empty()) {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            let v = decode_query(v);
            match k {
                "method" => method = Some(v),
                "key" => key = Some(v),
                "continuation-token" => token = Some(v),
                _ => {}
            }
        }
        let method = method.ok_or((400, "missing method".to_string()))?;
        let key = key.ok_or((400, "missing key".to_string()))?;
        if !key.starts_with(&self.allowed_prefix) {
            return Err((
                403,
                format!("keys must start with {:?}", self.allowed_prefix),
            ));
        }
        let S3Auth::Keys(creds) = &self.config.auth else {
            return Err((500, "no credentials".to_string()));
        };
        let (http_method, url) = match method.as_str() {
            "GET" | "HEAD" | "PUT" | "DELETE" => {
                let m = match method.as_str() {
                    "GET" => "GET",
                    "HEAD" => "HEAD",
                    "PUT" => "PUT",
                    _ => "DELETE",
                };
                (m, self.config.object_url(&key))
            }
            "LIST" => ("GET", self.config.list_url(&key, token.as_deref())),
            other => return Err((400, format!("unsupported method {other:?}"))),
        };
        presign_url(
            http_method,
            &url,
            creds,
            &self.config.region,
            now,
            self.expires,
        )
        .map_err(|e| (500, e))
    }
}

fn decode_query(v: &str) -> String {
    let v = v.replace('+', " ");
    percent_encoding::percent_decode_str(&v)
        .decode_utf8_lossy()
        .into_owned()
}

/// Serves [`PresignService`] over HTTP/1.1 on `listener` until the process ends (native; one
/// thread per connection). Every answer allows any origin (CORS), for pages on other ports.
#[cfg(not(target_arch = "wasm32"))]
pub fn serve(listener: std::net::TcpListener, service: PresignService) -> std::io::Result<()> {
    let service = std::sync::Arc::new(service);
    for stream in listener.incoming() {
        let Ok(stream) = stream else { continue };
        let service = service.clone();
        std::thread::spawn(move || {
            let _ = handle(stream, &service);
        });
    }
    Ok(())
}

#[cfg(not(target_arch = "wasm32"))]
fn handle(mut stream: std::net::TcpStream, service: &PresignService) -> std::io::Result<()> {
    use std::io::{BufRead, BufReader, Write};
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    // Skip the headers.
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header)? == 0 || header.trim().is_empty() {
            break;
        }
    }
    let mut parts = line.split_whitespace();
    let verb = parts.next().unwrap_or("");
    let target = parts.next().unwrap_or("");
    let query = target.split_once('?').map(|(_, q)| q).unwrap_or("");
    let (status, body) = match verb {
        "OPTIONS" => (204, String::new()),
        "GET" => match service.answer(query, SystemTime::now()) {
            Ok(url) => (200, url),
            Err((status, reason)) => (status, reason),
        },
        _ => (405, "only GET".to_string()),
    };
    let reason = match status {
        200 => "OK",
        204 => "No Content",
        400 => "Bad Request",
        403 => "Forbidden",
        405 => "Method Not Allowed",
        _ => "Error",
    };
    write!(
        stream,
        "HTTP/1.1 {status} {reason}\r\nContent-Type: text/plain\r\nContent-Length: {}\r\n\
         Access-Control-Allow-Origin: *\r\nAccess-Control-Allow-Methods: GET, OPTIONS\r\n\
         Cache-Control: no-store\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )?;
    stream.flush()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::s3::S3Credentials;

    #[test]
    fn answers_presign_queries() {
        let mut config = S3Config::new("bkt", "");
        config.endpoint = Some("http://127.0.0.1:1".to_string());
        config.path_style = true;
        config.auth = S3Auth::Keys(S3Credentials {
            access_key_id: "AKID".into(),
            secret_access_key: "secret".into(),
            session_token: None,
        });
        let s = PresignService::new(config, "wh/", Duration::from_secs(60)).unwrap();
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        let url = s.answer("method=GET&key=wh%2Fa%3D1", now).unwrap();
        assert!(
            url.starts_with("http://127.0.0.1:1/bkt/wh/a%3D1?X-Amz-Algorithm=AWS4-HMAC-SHA256"),
            "{url}"
        );
        assert!(url.contains("X-Amz-Signature=") && !url.contains("secret"));
        let list = s
            .answer("method=LIST&key=wh%2F&continuation-token=t", now)
            .unwrap();
        assert!(
            list.contains("list-type=2") && list.contains("continuation-token=t"),
            "{list}"
        );
        assert_eq!(s.answer("method=GET&key=other", now).unwrap_err().0, 403);
        assert_eq!(s.answer("method=POST&key=wh/x", now).unwrap_err().0, 400);
    }
}
