//! What a user types to open tables: a warehouse URI, or a catalog service address
//! (`paimon+rest://host:port/<warehouse>`, `paimon+rest+https://host/<warehouse>`).

use crate::catalog::StoreOpener;
use crate::{Catalog, Error, Result};
use lakescope_paimon::rest::{RestCatalog, RestOptions};
use lakescope_storage::transport::HttpTransport;
use std::rc::Rc;

/// A parsed catalog address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CatalogAddress {
    /// A filesystem warehouse: a path, `file://`, `http(s)://`, `s3://` or `opfs://` URI.
    Warehouse(String),
    /// A Paimon REST catalog at `uri` (`http(s)://host:port[/base]`), configured for `warehouse`.
    PaimonRest {
        /// The service's base URL.
        uri: String,
        /// The warehouse (catalog name) to ask `/v1/config` for.
        warehouse: String,
    },
}

impl CatalogAddress {
    /// Parses an address: `paimon+rest://HOST[:PORT][/BASE]/WAREHOUSE` (plain HTTP) or
    /// `paimon+rest+https://…` (TLS); anything else is a warehouse URI.
    pub fn parse(text: &str) -> Result<Self> {
        let text = text.trim();
        let (scheme, rest) = match text.split_once("://") {
            Some((s, r)) => (s.to_ascii_lowercase(), r),
            None => return Ok(Self::Warehouse(text.to_string())),
        };
        let http = match scheme.as_str() {
            "paimon+rest" => "http",
            "paimon+rest+https" => "https",
            "iceberg+rest" | "iceberg+rest+https" => {
                return Err(Error::Invalid(format!(
                    "'{text}': Iceberg REST catalogs cannot be opened by address yet (Paimon REST catalogs can: paimon+rest://HOST:PORT/WAREHOUSE)"
                )))
            }
            s if s.contains('+') => {
                return Err(Error::Invalid(format!(
                    "'{text}': unknown catalog scheme '{s}://' (Paimon REST catalogs: paimon+rest:// or paimon+rest+https://)"
                )))
            }
            _ => return Ok(Self::Warehouse(text.to_string())),
        };
        let rest = rest.trim_end_matches('/');
        match rest.rsplit_once('/') {
            Some((base, warehouse)) if !base.is_empty() && !warehouse.is_empty() => {
                Ok(Self::PaimonRest {
                    uri: format!("{http}://{base}"),
                    warehouse: warehouse.to_string(),
                })
            }
            _ => Err(Error::Invalid(format!(
                "'{text}': a Paimon REST catalog address names the service and the warehouse: {scheme}://HOST:PORT/WAREHOUSE"
            ))),
        }
    }

    /// Opens it: a warehouse with `open_warehouse`, a catalog service by connecting to it
    /// (`token` as a bearer token) over `transport`, with `stores` opening each table's store.
    pub async fn open(
        &self,
        open_warehouse: impl FnOnce(&str) -> Result<Catalog>,
        token: Option<String>,
        transport: Rc<dyn HttpTransport>,
        stores: Rc<dyn StoreOpener>,
    ) -> Result<Catalog> {
        match self {
            Self::Warehouse(uri) => open_warehouse(uri),
            Self::PaimonRest { uri, warehouse } => {
                let options = RestOptions {
                    warehouse: warehouse.clone(),
                    token,
                    ..RestOptions::default()
                };
                let service = RestCatalog::connect(uri, &options, transport).await?;
                Ok(Catalog::paimon_rest(service, stores))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_addresses() {
        assert_eq!(
            CatalogAddress::parse("paimon+rest://127.0.0.1:8080/wh").unwrap(),
            CatalogAddress::PaimonRest {
                uri: "http://127.0.0.1:8080".into(),
                warehouse: "wh".into()
            }
        );
        assert_eq!(
            CatalogAddress::parse("paimon+rest+https://dlf.example/api/lake/").unwrap(),
            CatalogAddress::PaimonRest {
                uri: "https://dlf.example/api".into(),
                warehouse: "lake".into()
            }
        );
        for w in ["/tmp/wh", "s3://b/wh", "file:///x", "http://h/wh"] {
            assert_eq!(
                CatalogAddress::parse(w).unwrap(),
                CatalogAddress::Warehouse(w.into())
            );
        }
        let e = CatalogAddress::parse("paimon+rest://host:1")
            .unwrap_err()
            .to_string();
        assert!(e.contains("HOST:PORT/WAREHOUSE"), "{e}");
        let e = CatalogAddress::parse("iceberg+rest://h/w")
            .unwrap_err()
            .to_string();
        assert!(e.contains("Iceberg REST catalogs cannot"), "{e}");
        let e = CatalogAddress::parse("hive+thrift://h/w")
            .unwrap_err()
            .to_string();
        assert!(e.contains("unknown catalog scheme"), "{e}");
    }
}
