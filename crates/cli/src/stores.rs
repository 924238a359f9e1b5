//! The CLI's stores: warehouses opened with this run's storage options, and the tables of a
//! catalog service with the S3 settings the service vends for each.

use lakescope_engine::StoreOpener;
use lakescope_storage::uri::StoreOptions;
use lakescope_storage::ObjectStore;
use std::collections::BTreeMap;
use std::rc::Rc;

/// Opens stores natively with these options, and catalog services with this request timeout.
pub struct NativeStores {
    /// The storage options of every store it opens.
    pub options: StoreOptions,
    /// How long a catalog service may take to answer one request (`--catalog-timeout`).
    pub catalog_timeout: std::time::Duration,
}

impl NativeStores {
    /// Stores opened with `options`; catalog requests time out after `catalog_timeout`.
    pub fn new(options: StoreOptions, catalog_timeout: std::time::Duration) -> Self {
        Self {
            options,
            catalog_timeout,
        }
    }
}

/// Location schemes this build can open.
const SCHEMES: [&str; 5] = ["file://", "s3://", "s3a://", "http://", "https://"];

impl StoreOpener for NativeStores {
    fn open(&self, uri: &str) -> lakescope_storage::Result<Rc<dyn ObjectStore>> {
        lakescope_storage::uri::open(uri, &self.options)
    }

    fn open_vended(
        &self,
        location: &str,
        vended: &BTreeMap<String, String>,
    ) -> lakescope_storage::Result<Rc<dyn ObjectStore>> {
        if !location.starts_with('/') && !SCHEMES.iter().any(|s| location.starts_with(s)) {
            return Err(lakescope_storage::Error::Unsupported {
                store: location.to_string(),
                operation: "opening this location (lakescope opens file://, s3:// and http(s):// locations)".to_string(),
            });
        }
        lakescope_storage::uri::open(location, &self.options.with_vended(vended))
    }

    fn catalog_transport(
        &self,
        uri: &str,
    ) -> lakescope_storage::Result<Rc<dyn lakescope_storage::transport::HttpTransport>> {
        let transport = lakescope_storage::transport::ReqwestTransport::new(self.catalog_timeout)
            .map_err(|e| lakescope_storage::Error::Unsupported {
            store: uri.to_string(),
            operation: format!("an HTTP client for the catalog service: {e}"),
        })?;
        Ok(Rc::new(transport))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_locations_this_build_opens() {
        let stores = NativeStores::new(StoreOptions::default(), std::time::Duration::from_secs(30));
        let e = stores
            .open_vended("oss://b/t", &BTreeMap::new())
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("oss://b/t"), "{e}");
        assert!(stores
            .open_vended("file:///tmp/wh/d/t", &BTreeMap::new())
            .is_ok());
    }
}
