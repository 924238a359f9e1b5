//! What a user types to open tables: a warehouse URI, or a catalog service address
//! (`paimon+rest://host:port/<warehouse>`, `iceberg+rest://host:port[/base][?warehouse=W&prefix=P]`
//! with the OAuth2 `oauth2-server-uri` and `scope` as further parameters, and their `+https` forms).

use crate::browsing_catalog::Browsing;
use crate::catalog::StoreOpener;
use crate::catalog_services::{IcebergService, OpenerStores, PaimonService};
use crate::{Catalog, Error, Result};
use lakescope_iceberg::rest::client::{OAUTH2_SERVER_URI, SCOPE};
use lakescope_iceberg::rest::{
    RestCatalog as IcebergRestCatalog, RestClient, RestOptions as IcebergRestOptions,
};
use lakescope_paimon::rest::{RestCatalog, RestOptions};
use lakescope_storage::transport::HttpTransport;
use lakescope_storage::ObjectStore;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::rc::Rc;

/// The secrets a catalog service is opened with (kept in memory only; the page hands them to
/// its SQL worker in a message, never in a URL or storage; `Debug` hides them).
#[derive(Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CatalogSecrets {
    /// A bearer token sent with every request.
    pub token: Option<String>,
    /// OAuth2 client credentials `ID:SECRET` (Iceberg REST), exchanged for the bearer token.
    pub credential: Option<String>,
}

impl From<Option<String>> for CatalogSecrets {
    /// A bearer token alone.
    fn from(token: Option<String>) -> Self {
        Self {
            token,
            credential: None,
        }
    }
}

impl std::fmt::Debug for CatalogSecrets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let redacted = |s: &Option<String>| s.as_ref().map(|_| "<redacted>");
        f.debug_struct("CatalogSecrets")
            .field("token", &redacted(&self.token))
            .field("credential", &redacted(&self.credential))
            .finish()
    }
}

/// A parsed catalog address.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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
    /// An Iceberg REST catalog at `uri`.
    IcebergRest {
        /// The service's base URL (the spec's paths follow it: `{uri}/v1/config`).
        uri: String,
        /// The `warehouse` to ask `/v1/config` for, if any.
        warehouse: Option<String>,
        /// The path prefix, when the server's config does not give one.
        prefix: Option<String>,
        /// OAuth2 settings of a client credential: `oauth2-server-uri` (the token endpoint, when
        /// it is not the catalog's `/v1/oauth/tokens`) and `scope` (default `catalog`).
        oauth: BTreeMap<String, String>,
    },
}

impl CatalogAddress {
    /// Parses an address: `paimon+rest://HOST[:PORT][/BASE]/WAREHOUSE` (plain HTTP) or
    /// `paimon+rest+https://…` (TLS); `iceberg+rest://HOST[:PORT][/BASE][?warehouse=W&prefix=P]`
    /// or `iceberg+rest+https://…`; anything else is a warehouse URI.
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
                let http = if scheme.ends_with("https") { "https" } else { "http" };
                return iceberg(text, http, rest);
            }
            s if s.contains('+') => {
                return Err(Error::Invalid(format!(
                    "'{text}': unknown catalog scheme '{s}://' (REST catalogs: paimon+rest://, iceberg+rest://, or their +https forms)"
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

    /// Opens it with `stores`: a warehouse's store, or a catalog service by connecting to it
    /// with `secrets` (a bearer token; OAuth2 client credentials for Iceberg REST) over
    /// `transport`, each of its tables' stores then opened by `stores` with the credentials the
    /// service vends.
    pub async fn open(
        &self,
        secrets: impl Into<CatalogSecrets>,
        transport: Rc<dyn HttpTransport>,
        stores: Rc<dyn StoreOpener>,
    ) -> Result<Catalog> {
        Ok(
            match self.connect(secrets.into(), transport, stores).await? {
                // the Iceberg tables created in it record their locations under its URI
                Connected::Warehouse(store) => Catalog::warehouse(store, self.service_uri()),
                Connected::Paimon(service) => Catalog::with_backend(Rc::new(service)),
                Connected::Iceberg(service) => Catalog::with_backend(Rc::new(service)),
            },
        )
    }

    /// [`CatalogAddress::open`] for browsing: the tables of a warehouse or a catalog service are
    /// listed, located and read, every DDL call is refused, and so is every commit to a
    /// service's table (the page's catalogs: its SQL worker opens the same address with
    /// [`CatalogAddress::open`] to write; see [`Catalog::browse`]).
    pub async fn open_for_browsing(
        &self,
        secrets: impl Into<CatalogSecrets>,
        transport: Rc<dyn HttpTransport>,
        stores: Rc<dyn StoreOpener>,
    ) -> Result<Catalog> {
        Ok(
            match self.connect(secrets.into(), transport, stores).await? {
                Connected::Warehouse(store) => Catalog::browse(store),
                Connected::Paimon(service) => Catalog::with_backend(Rc::new(Browsing(service))),
                Connected::Iceberg(service) => Catalog::with_backend(Rc::new(Browsing(service))),
            },
        )
    }

    /// Opens the warehouse's store, or connects to the catalog service.
    async fn connect(
        &self,
        secrets: CatalogSecrets,
        transport: Rc<dyn HttpTransport>,
        stores: Rc<dyn StoreOpener>,
    ) -> Result<Connected> {
        let CatalogSecrets { token, credential } = secrets;
        match self {
            Self::Warehouse(uri) => Ok(Connected::Warehouse(stores.open(uri)?)),
            Self::PaimonRest { .. } if credential.is_some() => Err(Error::Invalid(format!(
                "{}: OAuth2 client credentials are an Iceberg REST flow; a Paimon REST catalog takes a bearer token (--catalog-token)",
                self.service_uri()
            ))),
            Self::PaimonRest { uri, warehouse } => {
                let options = RestOptions {
                    warehouse: warehouse.clone(),
                    token,
                    ..RestOptions::default()
                };
                let service = RestCatalog::connect(uri, &options, transport).await?;
                Ok(Connected::Paimon(PaimonService {
                    service,
                    stores,
                    clock: lakescope_storage::clock::system_clock(),
                }))
            }
            Self::IcebergRest {
                uri,
                warehouse,
                prefix,
                oauth,
            } => {
                let mut properties = oauth.clone();
                if let Some(p) = prefix {
                    properties.insert("prefix".to_string(), p.clone());
                }
                let options = IcebergRestOptions {
                    warehouse: warehouse.clone(),
                    token,
                    credential,
                    properties,
                    clock: None,
                };
                let client = RestClient::connect(uri, &options, transport).await?;
                let stores = Rc::new(OpenerStores(stores));
                Ok(Connected::Iceberg(IcebergService(IcebergRestCatalog::new(
                    client, stores,
                ))))
            }
        }
    }
}

/// A warehouse opened or a catalog service connected to, not yet wrapped as a [`Catalog`].
enum Connected {
    Warehouse(Rc<dyn ObjectStore>),
    Paimon(PaimonService),
    Iceberg(IcebergService),
}

impl CatalogAddress {
    /// The service's base URL, or the warehouse URI.
    fn service_uri(&self) -> &str {
        match self {
            Self::Warehouse(uri) | Self::PaimonRest { uri, .. } | Self::IcebergRest { uri, .. } => {
                uri
            }
        }
    }
}

/// `iceberg+rest://HOST[:PORT][/BASE][?warehouse=W&prefix=P]` (after the scheme: `rest`).
fn iceberg(text: &str, http: &str, rest: &str) -> Result<CatalogAddress> {
    let (base, query) = rest.split_once('?').unwrap_or((rest, ""));
    let base = base.trim_end_matches('/');
    if base.is_empty() {
        return Err(Error::Invalid(format!(
            "'{text}': an Iceberg REST catalog address names the service: iceberg+rest://HOST:PORT[/BASE][?warehouse=W&prefix=P]"
        )));
    }
    let (mut warehouse, mut prefix, mut oauth) = (None, None, BTreeMap::new());
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        let value = percent_encoding::percent_decode_str(value)
            .decode_utf8_lossy()
            .into_owned();
        match key {
            "warehouse" => warehouse = Some(value),
            "prefix" => prefix = Some(value),
            OAUTH2_SERVER_URI | SCOPE => {
                oauth.insert(key.to_string(), value);
            }
            other => {
                return Err(Error::Invalid(format!(
                    "'{text}': unknown parameter '{other}' (an Iceberg REST catalog address takes warehouse, prefix, {OAUTH2_SERVER_URI} and {SCOPE})"
                )))
            }
        }
    }
    Ok(CatalogAddress::IcebergRest {
        uri: format!("{http}://{base}"),
        warehouse,
        prefix,
        oauth,
    })
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
        assert_eq!(
            CatalogAddress::parse("iceberg+rest://127.0.0.1:8181?warehouse=my%20wh&prefix=dev")
                .unwrap(),
            CatalogAddress::IcebergRest {
                uri: "http://127.0.0.1:8181".into(),
                warehouse: Some("my wh".into()),
                prefix: Some("dev".into()),
                oauth: BTreeMap::new(),
            }
        );
        assert_eq!(
            CatalogAddress::parse("iceberg+rest+https://h/api/catalog/").unwrap(),
            CatalogAddress::IcebergRest {
                uri: "https://h/api/catalog".into(),
                warehouse: None,
                prefix: None,
                oauth: BTreeMap::new(),
            }
        );
        let CatalogAddress::IcebergRest { oauth, .. } = CatalogAddress::parse(
            "iceberg+rest://h?oauth2-server-uri=https%3A%2F%2Fidp%2Ftoken&scope=PRINCIPAL_ROLE%3AALL",
        )
        .unwrap() else {
            panic!("not an Iceberg REST address");
        };
        assert_eq!(
            oauth,
            BTreeMap::from([
                (
                    "oauth2-server-uri".to_string(),
                    "https://idp/token".to_string()
                ),
                ("scope".to_string(), "PRINCIPAL_ROLE:ALL".to_string()),
            ])
        );
        let e = CatalogAddress::parse("iceberg+rest://h?branch=x")
            .unwrap_err()
            .to_string();
        assert!(e.contains("unknown parameter 'branch'"), "{e}");
        let e = CatalogAddress::parse("hive+thrift://h/w")
            .unwrap_err()
            .to_string();
        assert!(e.contains("unknown catalog scheme"), "{e}");
    }

    #[tokio::test]
    async fn a_warehouse_opened_by_address_creates_iceberg_tables_under_its_uri() {
        use lakescope_storage::transport::CannedTransport;
        use lakescope_storage::{MemoryStore, ObjectStore};
        /// Opens `/wh` as one shared in-memory store.
        struct OneStore(Rc<dyn ObjectStore>);
        impl StoreOpener for OneStore {
            fn open(&self, uri: &str) -> lakescope_storage::Result<Rc<dyn ObjectStore>> {
                assert_eq!(uri, "/wh");
                Ok(self.0.clone())
            }
        }
        let store: Rc<dyn ObjectStore> = Rc::new(MemoryStore::new());
        let catalog = CatalogAddress::parse("/wh")
            .unwrap()
            .open(
                CatalogSecrets::default(),
                Rc::new(CannedTransport::new(Vec::<(u16, String)>::new())),
                Rc::new(OneStore(store.clone())),
            )
            .await
            .unwrap();
        let def = crate::catalog::tests::one_int_column();
        let env = lakescope_paimon::write::FixedEnv::new(1, 1);
        catalog
            .create_iceberg_table_with(&env, "ns", "ice", &def)
            .await
            .unwrap();
        let listing = store.list_dir("ns/ice/metadata").await.unwrap();
        let metadata = listing
            .files
            .iter()
            .find(|f| f.path.ends_with(".metadata.json"))
            .expect("a metadata file");
        let json: serde_json::Value =
            serde_json::from_slice(&store.get(&metadata.path).await.unwrap()).unwrap();
        assert_eq!(json["location"], "file:///wh/ns/ice");
    }

    #[tokio::test]
    async fn a_client_credential_is_refused_for_a_paimon_rest_catalog_before_any_request() {
        use lakescope_storage::transport::CannedTransport;
        struct NoStores;
        impl StoreOpener for NoStores {
            fn open(
                &self,
                uri: &str,
            ) -> lakescope_storage::Result<Rc<dyn lakescope_storage::ObjectStore>> {
                panic!("opened {uri}")
            }
        }
        let transport = Rc::new(CannedTransport::new(Vec::<(u16, String)>::new()));
        let secrets = CatalogSecrets {
            token: None,
            credential: Some("id:secret".into()),
        };
        let e = CatalogAddress::parse("paimon+rest://h:1/wh")
            .unwrap()
            .open(secrets, transport.clone(), Rc::new(NoStores))
            .await
            .err()
            .unwrap()
            .to_string();
        assert!(
            e.contains("http://h:1") && e.contains("Iceberg REST flow"),
            "{e}"
        );
        assert!(!e.contains("secret"), "{e}");
        assert!(transport.asked().is_empty());
    }
}
