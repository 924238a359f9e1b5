//! An S3 store (`s3://bucket/prefix`): SigV4 keys, presigned URLs from a presign endpoint, or anonymous.
//!
//! Path-style (`endpoint/bucket/key`) and virtual-host (`bucket.endpoint/key`) addressing, custom
//! endpoints (MinIO, moto, ...), ListObjectsV2 with continuation, range GET, HEAD, PUT,
//! PUT with `If-None-Match: *` for atomic create, DELETE. Every request goes through a
//! [`Sender`]: per-request timeout and bounded retries with backoff and jitter.

pub mod presign;
mod sign;
mod xml;

pub use presign::{PresignService, Presigner};
pub use sign::{presign_url, sign_request, sign_request_for};
pub use xml::{parse_list, ListPage};

use crate::path::dir_prefix;
use crate::retry::{transport_error, Attempt, Sender};
use crate::transport::http_store::{
    checked_body, classify_status, error_code_suffix, trivial_range,
};
use crate::transport::{encode_key, HttpRequest, HttpResponse, TransportError};
use crate::{join, Error, Listing, ObjectMeta, ObjectStore, PutOutcome, Result};
use async_trait::async_trait;
use bytes::Bytes;
use std::ops::Range;

/// Access keys. `Debug` never prints the secret or the session token (serialising does: it is
/// how a page hands them to its own worker).
#[derive(Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct S3Credentials {
    /// The access key id (`AWS_ACCESS_KEY_ID`).
    pub access_key_id: String,
    /// The secret access key (`AWS_SECRET_ACCESS_KEY`); kept in memory only.
    pub secret_access_key: String,
    /// A session token for temporary credentials (`AWS_SESSION_TOKEN`).
    pub session_token: Option<String>,
}

impl std::fmt::Debug for S3Credentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("S3Credentials")
            .field("access_key_id", &self.access_key_id)
            .field("secret_access_key", &"<redacted>")
            .field(
                "session_token",
                &self.session_token.as_ref().map(|_| "<redacted>"),
            )
            .finish()
    }
}

impl S3Credentials {
    /// `AWS_ACCESS_KEY_ID` + `AWS_SECRET_ACCESS_KEY` (+ `AWS_SESSION_TOKEN`), if both keys are set.
    pub fn from_env() -> Option<Self> {
        let var = |name| std::env::var(name).ok().filter(|v: &String| !v.is_empty());
        Some(Self {
            access_key_id: var("AWS_ACCESS_KEY_ID")?,
            secret_access_key: var("AWS_SECRET_ACCESS_KEY")?,
            session_token: var("AWS_SESSION_TOKEN"),
        })
    }
}

/// How requests are authorised.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum S3Auth {
    /// No signature: a public bucket.
    Anonymous,
    /// SigV4 with these keys (natively, or in the browser when the user enters keys).
    Keys(S3Credentials),
    /// Every request uses a URL from this presign endpoint (credentials stay on that server).
    Presigned {
        /// The presign server's URL.
        endpoint: String,
    },
}

/// Where a bucket is and how to reach it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct S3Config {
    /// The bucket's name.
    pub bucket: String,
    /// Key prefix of the warehouse inside the bucket, without leading or trailing `/`.
    pub prefix: String,
    /// The region the requests are signed for (e.g. `us-east-1`).
    pub region: String,
    /// e.g. `http://127.0.0.1:9000`; default `https://s3.<region>.amazonaws.com`.
    pub endpoint: Option<String>,
    /// `endpoint/bucket/key` instead of `bucket.endpoint/key`.
    pub path_style: bool,
    /// How requests are authorised.
    pub auth: S3Auth,
    /// Page size of listings (`max-keys`; default: the server's, 1000 on S3).
    pub max_keys: Option<u32>,
}

impl S3Config {
    /// A config for `bucket`/`prefix` in `us-east-1`, anonymous, virtual-host addressing.
    pub fn new(bucket: &str, prefix: &str) -> Self {
        Self {
            bucket: bucket.to_string(),
            prefix: prefix.trim_matches('/').to_string(),
            region: "us-east-1".to_string(),
            endpoint: None,
            path_style: false,
            auth: S3Auth::Anonymous,
            max_keys: None,
        }
    }

    fn endpoint(&self) -> String {
        self.endpoint
            .clone()
            .unwrap_or_else(|| format!("https://s3.{}.amazonaws.com", self.region))
            .trim_end_matches('/')
            .to_string()
    }

    /// Whether requests use path-style addressing: asked for, or forced because the endpoint is
    /// an IP address or `localhost` (no `bucket.` subdomain can resolve there).
    pub fn uses_path_style(&self) -> bool {
        if self.path_style {
            return true;
        }
        let endpoint = self.endpoint();
        let host = endpoint
            .split_once("://")
            .map_or(endpoint.as_str(), |(_, r)| r);
        let host = host.split('/').next().unwrap_or("");
        let name = if host.starts_with('[') {
            return true; // IPv6 literal
        } else {
            host.rsplit_once(':').map_or(host, |(h, _)| h)
        };
        name == "localhost" || name.parse::<std::net::Ipv4Addr>().is_ok()
    }

    /// The bucket's base URL, without trailing `/`.
    pub fn bucket_url(&self) -> String {
        let endpoint = self.endpoint();
        if self.uses_path_style() {
            return format!("{endpoint}/{}", self.bucket);
        }
        match endpoint.split_once("://") {
            Some((scheme, rest)) => format!("{scheme}://{}.{rest}", self.bucket),
            None => format!("https://{}.{endpoint}", self.bucket),
        }
    }

    /// The URL of a full bucket key.
    pub fn object_url(&self, key: &str) -> String {
        format!("{}/{}", self.bucket_url(), encode_key(key))
    }

    /// The ListObjectsV2 URL for the children of `prefix` (a full key prefix).
    pub fn list_url(&self, prefix: &str, continuation: Option<&str>) -> String {
        let base = if self.uses_path_style() {
            self.bucket_url()
        } else {
            format!("{}/", self.bucket_url())
        };
        let mut url = format!(
            "{base}?list-type=2&prefix={}&delimiter=%2F",
            encode_query(prefix)
        );
        if let Some(token) = continuation {
            url.push_str("&continuation-token=");
            url.push_str(&encode_query(token));
        }
        if let Some(n) = self.max_keys {
            url.push_str(&format!("&max-keys={n}"));
        }
        url
    }

    /// The full bucket key of a store-relative path.
    pub fn full_key(&self, path: &str) -> String {
        join(&self.prefix, path.trim_start_matches('/'))
    }
}

/// Percent-encodes a query value (everything but unreserved characters).
pub fn encode_query(value: &str) -> String {
    const SET: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
        .remove(b'-')
        .remove(b'_')
        .remove(b'.')
        .remove(b'~');
    percent_encoding::utf8_percent_encode(value, SET).to_string()
}

/// The time used for signatures (injected: `SystemTime::now` does not work on wasm32).
pub use crate::clock::Clock;

/// What a request addresses.
enum Target<'a> {
    Object(&'a str),
    List {
        prefix: &'a str,
        token: Option<&'a str>,
    },
}

/// A store over one bucket prefix.
#[derive(Clone)]
pub struct S3Store {
    config: S3Config,
    sender: Sender,
    clock: Clock,
    presigner: Option<Presigner>,
}

impl S3Store {
    /// A store that sends through `sender`; the signing clock is the system clock natively.
    pub fn new(config: S3Config, sender: Sender) -> Self {
        let presigner = match &config.auth {
            S3Auth::Presigned { endpoint } => Some(Presigner::new(endpoint, sender.clone())),
            _ => None,
        };
        Self {
            config,
            sender,
            clock: crate::clock::system_clock(),
            presigner,
        }
    }

    /// Replaces the signing clock (the browser passes `Date.now()`).
    pub fn with_clock(mut self, clock: Clock) -> Self {
        self.clock = clock;
        self
    }

    /// The configuration.
    pub fn config(&self) -> &S3Config {
        &self.config
    }

    /// Builds (and signs, or presigns) the request for one attempt.
    async fn build(
        &self,
        method: &'static str,
        target: &Target<'_>,
        headers: &[(&str, String)],
        body: &Bytes,
    ) -> Result<HttpRequest> {
        let url = match (&self.presigner, target) {
            (Some(p), Target::Object(key)) => p.url(method, key, None).await?,
            (Some(p), Target::List { prefix, token }) => p.url("LIST", prefix, *token).await?,
            (None, Target::Object(key)) => self.config.object_url(key),
            (None, Target::List { prefix, token }) => self.config.list_url(prefix, *token),
        };
        let mut request = HttpRequest::new(method, url);
        for (k, v) in headers {
            request = request.header(k, v.clone());
        }
        request.body = body.clone();
        if let S3Auth::Keys(creds) = &self.config.auth {
            let key = match target {
                Target::Object(key) => key,
                Target::List { prefix, .. } => prefix,
            };
            sign_request(&mut request, creds, &self.config.region, (self.clock)()).map_err(
                |message| Error::Io {
                    operation: "sign request for",
                    path: key.to_string(),
                    message,
                },
            )?;
        }
        Ok(request)
    }

    /// One attempt: build, send; `Err` is final, `Ok(Err)` is a transport failure to retry.
    async fn send(
        &self,
        method: &'static str,
        target: &Target<'_>,
        headers: &[(&str, String)],
        body: &Bytes,
    ) -> Result<Result<HttpResponse, TransportError>> {
        let request = self.build(method, target, headers, body).await?;
        Ok(self.sender.send_once(request).await)
    }

    /// Why access was denied, with the likely missing credential or CORS rule.
    fn denied_hint(&self, response: &HttpResponse) -> String {
        let code = error_code_suffix(response);
        let what =
            match &self.config.auth {
                S3Auth::Anonymous => "no credentials were given: set AWS_ACCESS_KEY_ID and \
                AWS_SECRET_ACCESS_KEY (or use a presign endpoint), or make the bucket public"
                    .to_string(),
                S3Auth::Keys(c) => {
                    format!(
                "check that access key {} and its secret are right, that the region is {}, \
                 that AWS_SESSION_TOKEN is set for temporary credentials{}, and that the bucket \
                 policy allows this operation",
                c.access_key_id,
                self.config.region,
                if c.session_token.is_some() { " (and not expired)" } else { "" }
            )
                }
                S3Auth::Presigned { .. } => "the presigned URL was refused: the presign server's \
                credentials or clock may be wrong, or the URL expired"
                    .to_string(),
            };
        format!(
            "HTTP {}{code}; {what}; in a browser, the bucket's CORS rules must allow this \
             origin, the headers Authorization, Range, If-None-Match and x-amz-*, and expose \
             Content-Range, Content-Length and ETag",
            response.status
        )
    }

    async fn read(
        &self,
        method: &'static str,
        path: &str,
        range: Option<Range<u64>>,
    ) -> Result<(HttpResponse, Bytes)> {
        let key = self.config.full_key(path);
        let operation = if method == "HEAD" { "head" } else { "read" };
        let headers: Vec<(&str, String)> = range
            .iter()
            .map(|r| ("range", format!("bytes={}-{}", r.start, r.end - 1)))
            .collect();
        self.sender
            .run(|_| {
                let (key, headers, range) = (&key, &headers, range.clone());
                async move {
                    let response = match self
                        .send(method, &Target::Object(key), headers, &Bytes::new())
                        .await
                    {
                        Err(e) => return Attempt::Done(Err(e)),
                        Ok(Err(e)) => return Attempt::Retry(transport_error(operation, path, e)),
                        Ok(Ok(r)) => r,
                    };
                    if response.status == 416 {
                        return Attempt::Done(Err(out_of_range(path, range, &response)));
                    }
                    if let Some(done) =
                        classify_status(operation, path, &response, &|r| self.denied_hint(r))
                    {
                        return done;
                    }
                    if method == "HEAD" {
                        return Attempt::Done(Ok((response, Bytes::new())));
                    }
                    match checked_body(path, &response, range) {
                        Attempt::Done(Ok(body)) => Attempt::Done(Ok((response, body))),
                        Attempt::Done(Err(e)) => Attempt::Done(Err(e)),
                        Attempt::Retry(e) => Attempt::Retry(e),
                    }
                }
            })
            .await
    }

    async fn write(&self, path: &str, data: Bytes, if_absent: bool) -> Result<PutOutcome> {
        let key = self.config.full_key(path);
        let headers: Vec<(&str, String)> = if if_absent {
            vec![("if-none-match", "*".to_string())]
        } else {
            Vec::new()
        };
        self.sender
            .run(|attempt| {
                let (key, headers, data) = (&key, &headers, &data);
                async move {
                    let response = match self.send("PUT", &Target::Object(key), headers, data).await
                    {
                        Err(e) => return Attempt::Done(Err(e)),
                        Ok(Err(e)) => return Attempt::Retry(transport_error("write", path, e)),
                        Ok(Ok(r)) => r,
                    };
                    match response.status {
                        // After a failed attempt, our own earlier PUT may have landed: the
                        // object holding exactly our bytes means we created it.
                        412 if if_absent && attempt > 0 => match self.get(path).await {
                            Ok(existing) if existing == *data => {
                                Attempt::Done(Ok(PutOutcome::Created))
                            }
                            Ok(_) => Attempt::Done(Ok(PutOutcome::AlreadyExists)),
                            Err(e) => Attempt::Done(Err(e)),
                        },
                        412 if if_absent => Attempt::Done(Ok(PutOutcome::AlreadyExists)),
                        409 if if_absent => Attempt::Retry(Error::Io {
                            operation: "create",
                            path: path.to_string(),
                            message: "a concurrent write to the same key conflicted (HTTP 409)"
                                .to_string(),
                        }),
                        _ => classify_status("write", path, &response, &|r| self.denied_hint(r))
                            .unwrap_or(Attempt::Done(Ok(PutOutcome::Created))),
                    }
                }
            })
            .await
    }

    async fn list_page(&self, prefix: &str, token: Option<&str>) -> Result<ListPage> {
        self.sender
            .run(|_| async move {
                let target = Target::List { prefix, token };
                let response = match self.send("GET", &target, &[], &Bytes::new()).await {
                    Err(e) => return Attempt::Done(Err(e)),
                    Ok(Err(e)) => return Attempt::Retry(transport_error("list", prefix, e)),
                    Ok(Ok(r)) => r,
                };
                if let Some(done) =
                    classify_status("list", prefix, &response, &|r| self.denied_hint(r))
                {
                    return done;
                }
                if let Attempt::Retry(e) = checked_body(prefix, &response, None) {
                    return Attempt::Retry(e);
                }
                match parse_list(&response.body) {
                    Ok(page) => Attempt::Done(Ok(page)),
                    // A cut-off body parses badly too: retry, then report.
                    Err(reason) => Attempt::Retry(Error::Io {
                        operation: "list",
                        path: prefix.to_string(),
                        message: format!("invalid ListObjectsV2 answer: {reason}"),
                    }),
                }
            })
            .await
    }
}

fn out_of_range(path: &str, range: Option<Range<u64>>, response: &HttpResponse) -> Error {
    let range = range.unwrap_or(0..0);
    let size = response
        .header("content-range")
        .and_then(|v| v.rsplit('/').next())
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0);
    Error::OutOfRange {
        path: path.to_string(),
        start: range.start,
        end: range.end,
        size,
    }
}

#[async_trait(?Send)]
impl ObjectStore for S3Store {
    fn describe(&self) -> String {
        format!("s3://{}/{}", self.config.bucket, self.config.prefix)
    }

    fn root_uri(&self) -> Option<String> {
        Some(self.describe())
    }

    async fn get(&self, path: &str) -> Result<Bytes> {
        Ok(self.read("GET", path, None).await?.1)
    }

    async fn get_range(&self, path: &str, range: Range<u64>) -> Result<Bytes> {
        if let Some(answer) = trivial_range(path, &range) {
            return answer;
        }
        Ok(self.read("GET", path, Some(range)).await?.1)
    }

    async fn head(&self, path: &str) -> Result<ObjectMeta> {
        let (response, _) = self.read("HEAD", path, None).await?;
        let size = response.content_length().ok_or_else(|| Error::Io {
            operation: "head",
            path: path.to_string(),
            message: "the answer has no Content-Length (in a browser: expose it via CORS)"
                .to_string(),
        })?;
        Ok(ObjectMeta {
            path: path.to_string(),
            size,
        })
    }

    async fn list_dir(&self, prefix: &str) -> Result<Listing> {
        let rel = dir_prefix(prefix);
        let full = dir_prefix(&self.config.full_key(&rel));
        let store_prefix = dir_prefix(&self.config.prefix);
        let mut listing = Listing::default();
        let mut token: Option<String> = None;
        loop {
            let page = self.list_page(&full, token.as_deref()).await?;
            for p in page.prefixes {
                if let Some(name) = p.strip_prefix(&full) {
                    let name = name.trim_end_matches('/');
                    if !name.is_empty() {
                        listing.dirs.push(name.to_string());
                    }
                }
            }
            for (key, size) in page.objects {
                if key.ends_with('/') {
                    continue; // a "folder" marker object
                }
                if let Some(path) = key.strip_prefix(&store_prefix) {
                    listing.files.push(ObjectMeta {
                        path: path.to_string(),
                        size,
                    });
                }
            }
            match page.next_token {
                Some(t) => token = Some(t),
                None => break,
            }
        }
        listing.dirs.sort();
        listing.dirs.dedup();
        listing.files.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(listing)
    }

    async fn put(&self, path: &str, data: Bytes) -> Result<()> {
        self.write(path, data, false).await.map(|_| ())
    }

    async fn put_if_absent(&self, path: &str, data: Bytes) -> Result<PutOutcome> {
        self.write(path, data, true).await
    }

    async fn delete(&self, path: &str) -> Result<()> {
        let key = self.config.full_key(path);
        self.sender
            .run(|_| {
                let key = &key;
                async move {
                    let response = match self
                        .send("DELETE", &Target::Object(key), &[], &Bytes::new())
                        .await
                    {
                        Err(e) => return Attempt::Done(Err(e)),
                        Ok(Err(e)) => return Attempt::Retry(transport_error("delete", path, e)),
                        Ok(Ok(r)) => r,
                    };
                    if response.status == 404 {
                        return Attempt::Done(Ok(()));
                    }
                    classify_status("delete", path, &response, &|r| self.denied_hint(r))
                        .unwrap_or(Attempt::Done(Ok(())))
                }
            })
            .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::rc::Rc;
    use std::time::SystemTime;

    #[test]
    fn addressing() {
        let mut c = S3Config::new("bkt", "/wh/");
        assert_eq!(
            c.object_url("wh/a b"),
            "https://bkt.s3.us-east-1.amazonaws.com/wh/a%20b"
        );
        c.endpoint = Some("http://127.0.0.1:9000/".to_string());
        assert!(c.uses_path_style(), "an IP endpoint forces path-style");
        c.endpoint = Some("https://minio.example:9000".to_string());
        assert_eq!(c.object_url("k"), "https://bkt.minio.example:9000/k");
        c.endpoint = Some("http://127.0.0.1:9000/".to_string());
        assert_eq!(c.object_url("wh/k=1"), "http://127.0.0.1:9000/bkt/wh/k%3D1");
        assert_eq!(
            c.list_url("wh/", Some("a/b")),
            "http://127.0.0.1:9000/bkt?list-type=2&prefix=wh%2F&delimiter=%2F&continuation-token=a%2Fb"
        );
        assert_eq!(c.full_key("/x/y"), "wh/x/y");
        let creds = S3Credentials {
            access_key_id: "AKID".into(),
            secret_access_key: "very-secret".into(),
            session_token: Some("tok".into()),
        };
        assert!(!format!("{creds:?}").contains("very-secret"));
        assert!(!format!("{creds:?}").contains("tok\""));
    }

    use crate::retry::{RetryPolicy, SeededJitter, Timer};
    use crate::transport::HttpTransport;
    use futures::future::LocalBoxFuture;
    use std::cell::RefCell;
    use std::time::Duration;

    /// Answers from a script and records what was asked.
    struct Scripted {
        answers: RefCell<Vec<HttpResponse>>,
        seen: RefCell<Vec<HttpRequest>>,
    }

    #[async_trait(?Send)]
    impl HttpTransport for Scripted {
        async fn send(&self, request: HttpRequest) -> Result<HttpResponse, TransportError> {
            self.seen.borrow_mut().push(request);
            let mut answers = self.answers.borrow_mut();
            if answers.is_empty() {
                return Err(TransportError::Connection("script exhausted".into()));
            }
            Ok(answers.remove(0))
        }
    }

    /// Records the backoff delays instead of sleeping (the request timeout never fires first:
    /// scripted answers are ready at once).
    struct Recorder(Rc<RefCell<Vec<Duration>>>);

    impl Timer for Recorder {
        fn sleep(&self, d: Duration) -> LocalBoxFuture<'static, ()> {
            let log = self.0.clone();
            Box::pin(async move {
                if d < Duration::from_secs(10) {
                    log.borrow_mut().push(d);
                } else {
                    futures::future::pending::<()>().await;
                }
            })
        }
    }

    fn answer(status: u16, body: &'static str) -> HttpResponse {
        HttpResponse {
            status,
            headers: vec![("content-length".into(), body.len().to_string())],
            body: Bytes::from_static(body.as_bytes()),
        }
    }

    fn scripted(answers: Vec<HttpResponse>) -> (S3Store, Rc<Scripted>, Rc<RefCell<Vec<Duration>>>) {
        let t = Rc::new(Scripted {
            answers: RefCell::new(answers),
            seen: RefCell::new(Vec::new()),
        });
        let sleeps = Rc::new(RefCell::new(Vec::new()));
        let mut c = S3Config::new("b", "wh");
        c.endpoint = Some("http://127.0.0.1:9".into());
        c.path_style = true;
        c.auth = S3Auth::Keys(S3Credentials {
            access_key_id: "AKID".into(),
            secret_access_key: "hush".into(),
            session_token: Some("session".into()),
        });
        let sender = Sender {
            transport: t.clone(),
            timer: Rc::new(Recorder(sleeps.clone())),
            jitter: Rc::new(SeededJitter::new(3)),
            policy: RetryPolicy {
                max_attempts: 4,
                base_delay: Duration::from_millis(100),
                max_delay: Duration::from_secs(1),
                request_timeout: Duration::from_secs(30),
            },
        };
        let store = S3Store::new(c, sender).with_clock(Rc::new(|| {
            SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000)
        }));
        (store, t, sleeps)
    }

    #[test]
    fn retries_conflicts_and_transient_errors_with_jittered_backoff() {
        futures::executor::block_on(async {
            // 409 on a conditional PUT is retried; 412 means someone else created it.
            let (s, t, sleeps) = scripted(vec![
                answer(409, ""),
                answer(503, ""),
                answer(412, ""),
                answer(200, "someone else's"),
            ]);
            let out = s
                .put_if_absent("t/snapshot/snapshot-2", Bytes::from_static(b"x"))
                .await;
            assert_eq!(out.unwrap(), PutOutcome::AlreadyExists);
            let seen = t.seen.borrow().clone();
            assert_eq!(seen.len(), 4, "PUT, PUT, PUT, then GET to compare");
            assert_eq!(seen[0].url, "http://127.0.0.1:9/b/wh/t/snapshot/snapshot-2");
            let header = |name: &str| {
                seen[0]
                    .headers
                    .iter()
                    .find(|(k, _)| k == name)
                    .map(|(_, v)| v.clone())
            };
            assert_eq!(header("if-none-match").as_deref(), Some("*"));
            assert!(header("authorization").unwrap().starts_with(
                "AWS4-HMAC-SHA256 Credential=AKID/20231114/us-east-1/s3/aws4_request"
            ));
            assert_eq!(header("x-amz-security-token").as_deref(), Some("session"));
            assert!(header("x-amz-content-sha256").is_some());
            // Two backoffs, each below its cap (100 ms, then 200 ms), and deterministic.
            let d = sleeps.borrow().clone();
            assert_eq!(d.len(), 2);
            assert!(
                d[0] < Duration::from_millis(100) && d[1] < Duration::from_millis(200),
                "{d:?}"
            );
            let (s2, _, sleeps2) =
                scripted(vec![answer(409, ""), answer(503, ""), answer(200, "")]);
            assert_eq!(
                s2.put_if_absent("k", Bytes::new()).await.unwrap(),
                PutOutcome::Created
            );
            assert_eq!(*sleeps2.borrow(), d, "same seed, same delays");
            // Our first PUT landed but its answer was lost: the 412 on the retry is ours.
            let (s3, _, _) = scripted(vec![answer(503, ""), answer(412, ""), answer(200, "x")]);
            assert_eq!(
                s3.put_if_absent("k", Bytes::from_static(b"x"))
                    .await
                    .unwrap(),
                PutOutcome::Created
            );
            // Retries are bounded: the last error is reported.
            let (s, t, _) = scripted(vec![answer(500, ""); 9]);
            let e = s.get("m").await.unwrap_err().to_string();
            assert!(e.contains("HTTP 500") && e.contains("4 attempts"), "{e}");
            assert_eq!(t.seen.borrow().len(), 4);
            // 403 is final, explained, and never shows the secret or the session token.
            let (s, t, _) = scripted(vec![answer(
                403,
                "<Error><Code>SignatureDoesNotMatch</Code><Message>nope</Message></Error>",
            )]);
            let e = s.get("db.db/t/schema/schema-0").await.unwrap_err();
            let text = e.to_string();
            assert!(matches!(e, Error::PermissionDenied { .. }));
            assert!(
                text.contains("schema-0") && text.contains("SignatureDoesNotMatch"),
                "{text}"
            );
            assert!(
                text.contains("CORS") && !text.contains("hush") && !text.contains("session\""),
                "{text}"
            );
            assert_eq!(t.seen.borrow().len(), 1);
            // 404 names the key.
            let (s, _, _) = scripted(vec![answer(404, "")]);
            assert!(s
                .get("a/missing")
                .await
                .unwrap_err()
                .to_string()
                .contains("a/missing"));
        });
    }
}
