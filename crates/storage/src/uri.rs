//! Opens a store from a warehouse URI: a path, `file://`, `memory://`, `http(s)://` or `s3://bucket/prefix`.

use crate::cache::CachingStore;
use crate::limit::LimitedStore;
use crate::retry::{Jitter, RetryPolicy, Sender, Timer};
use crate::s3::{S3Auth, S3Config, S3Credentials, S3Store};
use crate::transport::{HttpReadStore, HttpTransport};
use crate::{Error, IndexedStore, MemoryStore, ObjectStore, Result};
use std::rc::Rc;

/// Options for remote warehouses (ignored for local ones): the whole description of a
/// connection besides its URI. Serialisable, so a page can post it to a worker; `Debug` never
/// shows the secret key or the session token.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct StoreOptions {
    /// S3 endpoint, e.g. `http://127.0.0.1:9000` (default: AWS for the region).
    pub s3_endpoint: Option<String>,
    /// S3 region (default `us-east-1`).
    pub s3_region: Option<String>,
    /// Path-style S3 addressing (`endpoint/bucket/key`).
    pub s3_path_style: bool,
    /// Presign endpoint: S3 requests use URLs from it instead of keys.
    pub presign_endpoint: Option<String>,
    /// S3 keys; `None` (and no presign endpoint) means anonymous.
    pub credentials: Option<S3Credentials>,
    /// Retries and per-request timeout.
    pub retry: RetryPolicy,
    /// Bytes of immutable objects kept in memory (0: no cache).
    pub cache_bytes: u64,
    /// Requests in flight at once.
    pub max_concurrency: usize,
}

impl Default for StoreOptions {
    fn default() -> Self {
        Self {
            s3_endpoint: None,
            s3_region: None,
            s3_path_style: false,
            presign_endpoint: None,
            credentials: None,
            retry: RetryPolicy::default(),
            cache_bytes: 256 << 20,
            max_concurrency: 16,
        }
    }
}

impl StoreOptions {
    /// These options with the S3 settings a catalog vends for one table (a Paimon data token, an
    /// Iceberg loadTable config): keys and session token (Iceberg's `s3.access-key-id`,
    /// `s3.secret-access-key`, `s3.session-token`; Paimon's `s3.access-key`, `s3.secret-key`,
    /// `s3.session-token` or the Hadoop `fs.s3a.*` names), endpoint, region and path style.
    /// Vended keys replace the run's own keys and presign endpoint; without keys only the
    /// endpoint, region and path style given apply.
    pub fn with_vended(&self, vended: &std::collections::BTreeMap<String, String>) -> Self {
        let get = |keys: &[&str]| keys.iter().find_map(|k| vended.get(*k)).cloned();
        let mut options = self.clone();
        if let (Some(key), Some(secret)) = (
            get(&["s3.access-key-id", "s3.access-key", "fs.s3a.access.key"]),
            get(&["s3.secret-access-key", "s3.secret-key", "fs.s3a.secret.key"]),
        ) {
            options.credentials = Some(S3Credentials {
                access_key_id: key,
                secret_access_key: secret,
                session_token: get(&["s3.session-token", "fs.s3a.session.token"]),
            });
            options.presign_endpoint = None;
        }
        if let Some(endpoint) = get(&["s3.endpoint", "fs.s3a.endpoint"]) {
            options.s3_endpoint = Some(endpoint);
        }
        if let Some(region) = get(&["s3.region", "client.region", "fs.s3a.endpoint.region"]) {
            options.s3_region = Some(region);
        }
        if let Some(style) = get(&[
            "s3.path-style-access",
            "s3.path.style.access",
            "fs.s3a.path.style.access",
        ]) {
            options.s3_path_style = style.eq_ignore_ascii_case("true");
        }
        options
    }

    /// The options as JSON (with the credentials: for a worker of the same page, or storage the
    /// user asked for — never for logs).
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// Options from [`StoreOptions::to_json`]; missing fields take their defaults.
    pub fn from_json(json: &str) -> Result<Self> {
        serde_json::from_str(json).map_err(|e| Error::Io {
            operation: "parse",
            path: "store options".to_string(),
            message: e.to_string(),
        })
    }
}

/// `s3://bucket/prefix` → (`bucket`, `prefix`).
pub fn parse_s3_uri(uri: &str) -> Option<(String, String)> {
    let rest = uri
        .strip_prefix("s3://")
        .or_else(|| uri.strip_prefix("s3a://"))?;
    let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
    (!bucket.is_empty()).then(|| (bucket.to_string(), prefix.trim_matches('/').to_string()))
}

/// The S3 config of an `s3://` URI under `options`.
pub fn s3_config(uri: &str, options: &StoreOptions) -> Result<S3Config> {
    let (bucket, prefix) = parse_s3_uri(uri).ok_or_else(|| Error::Unsupported {
        store: uri.to_string(),
        operation: "opening (expected s3://BUCKET/PREFIX)".to_string(),
    })?;
    let mut config = S3Config::new(&bucket, &prefix);
    if let Some(region) = &options.s3_region {
        config.region = region.clone();
    }
    config.endpoint = options.s3_endpoint.clone();
    config.path_style = options.s3_path_style;
    config.auth = match (&options.presign_endpoint, &options.credentials) {
        (Some(endpoint), _) => S3Auth::Presigned {
            endpoint: endpoint.clone(),
        },
        (None, Some(creds)) => S3Auth::Keys(creds.clone()),
        (None, None) => S3Auth::Anonymous,
    };
    Ok(config)
}

fn wrap<S: ObjectStore + 'static>(store: S, options: &StoreOptions) -> Rc<dyn ObjectStore> {
    let limited = LimitedStore::new(store, options.max_concurrency);
    if options.cache_bytes == 0 {
        Rc::new(limited)
    } else {
        Rc::new(CachingStore::new(limited, options.cache_bytes))
    }
}

/// Opens a remote (`http(s)://`, `s3://`) or `memory://` store through the given transport and
/// timer; remote stores get the concurrency limit and the immutable-object cache.
pub fn open_remote(
    uri: &str,
    options: &StoreOptions,
    transport: Rc<dyn HttpTransport>,
    timer: Rc<dyn Timer>,
    jitter: Rc<dyn Jitter>,
) -> Result<Rc<dyn ObjectStore>> {
    let sender = Sender {
        transport,
        timer,
        jitter,
        policy: options.retry.clone(),
    };
    if uri.starts_with("memory://") {
        return Ok(Rc::new(MemoryStore::new()));
    }
    if uri.starts_with("http://") || uri.starts_with("https://") {
        let store = IndexedStore::new(HttpReadStore::new(uri, sender));
        return Ok(wrap(store, options));
    }
    if parse_s3_uri(uri).is_some() {
        let store = S3Store::new(s3_config(uri, options)?, sender);
        return Ok(wrap(store, options));
    }
    Err(Error::Unsupported {
        store: uri.to_string(),
        operation: "opening (use a path, file://, memory://, http(s):// or s3://)".to_string(),
    })
}

/// Opens any warehouse URI natively: paths and `file://` as local folders; `http(s)://` and
/// `s3://` over the `reqwest` transport (feature `native-http`).
#[cfg(not(target_arch = "wasm32"))]
pub fn open(uri: &str, options: &StoreOptions) -> Result<Rc<dyn ObjectStore>> {
    let remote = ["http://", "https://", "s3://", "s3a://", "memory://"];
    if !remote.iter().any(|scheme| uri.starts_with(scheme)) {
        return Ok(Rc::new(crate::LocalStore::from_uri(uri)));
    }
    #[cfg(feature = "native-http")]
    {
        let transport = crate::transport::ReqwestTransport::new(options.retry.request_timeout)
            .map_err(|e| Error::Io {
                operation: "open",
                path: uri.to_string(),
                message: e.to_string(),
            })?;
        let seed = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(1);
        open_remote(
            uri,
            options,
            Rc::new(transport),
            Rc::new(crate::retry::TokioTimer),
            Rc::new(crate::retry::SeededJitter::new(seed)),
        )
    }
    #[cfg(not(feature = "native-http"))]
    {
        let _ = options;
        Err(Error::Unsupported {
            store: uri.to_string(),
            operation: "remote warehouses (build with feature native-http)".to_string(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn s3_uris_and_options() {
        assert_eq!(
            parse_s3_uri("s3://b/w/h/"),
            Some(("b".to_string(), "w/h".to_string()))
        );
        assert_eq!(
            parse_s3_uri("s3://b"),
            Some(("b".to_string(), String::new()))
        );
        assert_eq!(parse_s3_uri("s3:///x"), None);
        let options = StoreOptions {
            s3_endpoint: Some("http://127.0.0.1:1".into()),
            s3_path_style: true,
            presign_endpoint: Some("http://127.0.0.1:2/presign".into()),
            ..StoreOptions::default()
        };
        let c = s3_config("s3://b/w", &options).unwrap();
        assert!(matches!(c.auth, S3Auth::Presigned { .. }));
        assert_eq!(c.object_url("w/x"), "http://127.0.0.1:1/b/w/x");
    }

    #[test]
    fn vended_s3_settings_in_iceberg_and_paimon_spellings() {
        let map = |pairs: &[(&str, &str)]| -> std::collections::BTreeMap<String, String> {
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        };
        let base = StoreOptions {
            presign_endpoint: Some("http://presign".into()),
            ..StoreOptions::default()
        };
        let iceberg = base.with_vended(&map(&[
            ("s3.access-key-id", "AK"),
            ("s3.secret-access-key", "SK"),
            ("s3.session-token", "ST"),
            ("s3.endpoint", "http://127.0.0.1:9000"),
            ("s3.region", "eu-west-1"),
            ("s3.path-style-access", "true"),
        ]));
        let c = iceberg.credentials.clone().unwrap();
        assert_eq!(
            (c.access_key_id.as_str(), c.secret_access_key.as_str()),
            ("AK", "SK")
        );
        assert_eq!(c.session_token.as_deref(), Some("ST"));
        assert_eq!(
            iceberg.s3_endpoint.as_deref(),
            Some("http://127.0.0.1:9000")
        );
        assert_eq!(iceberg.s3_region.as_deref(), Some("eu-west-1"));
        assert!(iceberg.s3_path_style && iceberg.presign_endpoint.is_none());
        let paimon = base.with_vended(&map(&[
            ("fs.s3a.access.key", "AK2"),
            ("fs.s3a.secret.key", "SK2"),
        ]));
        let c = paimon.credentials.unwrap();
        assert_eq!((c.access_key_id.as_str(), c.session_token), ("AK2", None));
        // no keys: the run's own credentials and presign endpoint stay
        let none = base.with_vended(&map(&[("fs.oss.accessKeyId", "x")]));
        assert!(none.credentials.is_none());
        assert_eq!(none.presign_endpoint.as_deref(), Some("http://presign"));
    }
}
