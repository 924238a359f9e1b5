//! The CLI's stores for the tables of a catalog service: a table's location opened with this
//! run's storage options and the S3 settings the catalog vends for it.

use lakescope_engine::{Error, Result, StoreOpener};
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
        let options = self.0.with_vended(vended);
        Ok(lakescope_storage::uri::open(location, &options)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_locations_this_build_opens() {
        let stores = NativeStores(StoreOptions::default());
        let e = stores
            .open("oss://b/t", &BTreeMap::new())
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("oss://b/t"), "{e}");
        assert!(stores.open("file:///tmp/wh/d/t", &BTreeMap::new()).is_ok());
    }
}
