//! The CLI's stores for the tables of a catalog service: a table's location opened with this
//! run's storage options, or with the S3 credentials the catalog vends for it.

use lakescope_engine::{Error, Result, StoreOpener};
use lakescope_storage::s3::S3Credentials;
use lakescope_storage::uri::StoreOptions;
use lakescope_storage::ObjectStore;
use std::collections::BTreeMap;
use std::rc::Rc;

/// Opens table locations natively with these options.
pub struct NativeStores(pub StoreOptions);

/// Location schemes this build can open.
const SCHEMES: [&str; 5] = ["file://", "s3://", "s3a://", "http://", "https://"];

impl StoreOpener for NativeStores {
    fn open(
        &self,
        location: &str,
        vended: &BTreeMap<String, String>,
    ) -> Result<Rc<dyn ObjectStore>> {
        if !location.starts_with('/') && !SCHEMES.iter().any(|s| location.starts_with(s)) {
            return Err(Error::Invalid(format!(
                "table location {location}: lakescope opens file://, s3:// and http(s):// locations, not this one"
            )));
        }
        let options = with_vended(&self.0, vended);
        Ok(lakescope_storage::uri::open(location, &options)?)
    }
}

/// `base` with the S3 keys of a data token, when it has some: Paimon's S3 options
/// (`s3.access-key`, `s3.secret-key`, `s3.session-token`, `s3.endpoint`) or their Hadoop
/// spelling (`fs.s3a.access.key`, …).
fn with_vended(base: &StoreOptions, vended: &BTreeMap<String, String>) -> StoreOptions {
    let get = |keys: [&str; 2]| keys.iter().find_map(|k| vended.get(*k)).cloned();
    let mut options = base.clone();
    if let (Some(key), Some(secret)) = (
        get(["s3.access-key", "fs.s3a.access.key"]),
        get(["s3.secret-key", "fs.s3a.secret.key"]),
    ) {
        options.credentials = Some(S3Credentials {
            access_key_id: key,
            secret_access_key: secret,
            session_token: get(["s3.session-token", "fs.s3a.session.token"]),
        });
        options.presign_endpoint = None;
    }
    if let Some(endpoint) = get(["s3.endpoint", "fs.s3a.endpoint"]) {
        options.s3_endpoint = Some(endpoint);
    }
    if let Some(style) = get(["s3.path.style.access", "fs.s3a.path.style.access"]) {
        options.s3_path_style = style.eq_ignore_ascii_case("true");
    }
    options
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vended_keys_replace_the_runs_own() {
        let vended = BTreeMap::from([
            ("fs.s3a.access.key".to_string(), "AK".to_string()),
            ("fs.s3a.secret.key".to_string(), "SK".to_string()),
            ("s3.endpoint".to_string(), "http://e".to_string()),
        ]);
        let o = with_vended(&StoreOptions::default(), &vended);
        let c = o.credentials.unwrap();
        assert_eq!((c.access_key_id.as_str(), c.session_token), ("AK", None));
        assert_eq!(o.s3_endpoint.as_deref(), Some("http://e"));
        let none = with_vended(&StoreOptions::default(), &BTreeMap::new());
        assert!(none.credentials.is_none());
        let e = NativeStores(StoreOptions::default())
            .open("oss://b/t", &BTreeMap::new())
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("oss://b/t"), "{e}");
    }
}
