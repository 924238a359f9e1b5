//! The CLI's stores: warehouses opened with this run's storage options, and the tables of a
//! catalog service with the S3 settings the service vends for each.

use lakescope_engine::StoreOpener;
use lakescope_storage::uri::StoreOptions;
use lakescope_storage::ObjectStore;
use std::collections::BTreeMap;
use std::rc::Rc;

/// Opens stores natively with these options.
pub struct NativeStores(pub StoreOptions);

/// Location schemes this build can open.
const SCHEMES: [&str; 5] = ["file://", "s3://", "s3a://", "http://", "https://"];

impl StoreOpener for NativeStores {
    fn open(&self, uri: &str) -> lakescope_storage::Result<Rc<dyn ObjectStore>> {
        lakescope_storage::uri::open(uri, &self.0)
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
        lakescope_storage::uri::open(location, &self.0.with_vended(vended))
    }

    fn catalog_transport(
        &self,
        uri: &str,
    ) -> lakescope_storage::Result<Rc<dyn lakescope_storage::transport::HttpTransport>> {
        let transport =
            lakescope_storage::transport::ReqwestTransport::new(self.0.retry.request_timeout)
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
        let stores = NativeStores(StoreOptions::default());
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
