//! Opening a REST catalog service (Paimon REST, Iceberg REST) from the page: the stores of the
//! tables it locates, and plain-words errors (CORS, a refused token, a location a browser cannot read).

use lakescope_engine::{Catalog, CatalogAddress, CatalogSecrets, ServedLocation, StoreOpener};
use lakescope_storage::browser::{self, Scheme};
use lakescope_storage::transport::FetchTransport;
use lakescope_storage::uri::StoreOptions;
use lakescope_storage::{IoMeter, MeteredStore, ObjectStore};
use std::collections::BTreeMap;
use std::rc::Rc;
use std::sync::Arc;
use std::time::Duration;

/// How long one request to a catalog may take (answer and whole body) before it is aborted.
const CATALOG_TIMEOUT: Duration = Duration::from_secs(30);

/// Which protocol the open catalog speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ServiceKind {
    /// A Paimon REST catalog.
    Paimon,
    /// An Iceberg REST catalog.
    Iceberg,
}

impl ServiceKind {
    /// The format's name, for messages.
    pub fn name(self) -> &'static str {
        match self {
            Self::Paimon => "Paimon",
            Self::Iceberg => "Iceberg",
        }
    }
}

/// What the catalog form gives besides the address.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CatalogSettings {
    /// The bearer token sent to the catalog.
    pub token: Option<String>,
    /// OAuth2 client credentials `ID:SECRET` of an Iceberg REST catalog.
    pub credential: Option<String>,
    /// Table files the catalog places under this location (`file:///srv/lake/`) are read from
    /// [`Self::files_url`] instead: the catalog's machine serves them over HTTP.
    pub files_location: Option<String>,
    /// Where [`Self::files_location`] is served (`https://files.example/lake/`).
    pub files_url: Option<String>,
}

/// Opens the stores of the tables a catalog locates: `http(s)://` and `s3://` (with the S3
/// settings of the form, and those the catalog vends), after mapping the served file location.
struct BrowserStores {
    options: StoreOptions,
    served: Option<ServedLocation>,
    meter: Arc<IoMeter>,
}

impl StoreOpener for BrowserStores {
    fn open(&self, uri: &str) -> lakescope_storage::Result<Rc<dyn ObjectStore>> {
        self.open_vended(uri, &BTreeMap::new())
    }

    fn open_vended(
        &self,
        location: &str,
        vended: &BTreeMap<String, String>,
    ) -> lakescope_storage::Result<Rc<dyn ObjectStore>> {
        let reachable = ServedLocation::reachable(self.served.as_ref(), location);
        let scheme = reachable.split_once("://").map(|(s, _)| s).unwrap_or("");
        if !matches!(browser::scheme(&reachable), Ok(Scheme::Http | Scheme::S3))
            || scheme.is_empty()
        {
            return Err(lakescope_storage::Error::Unsupported {
                store: location.to_string(),
                operation: format!(
                    "reading table files at a {scheme}:// location in a browser (it reads \
                     http(s):// and s3:// locations): serve the files over HTTP and give their \
                     URL under \"Table files under … are served at …\" in the catalog form"
                ),
            });
        }
        let store = browser::open(&reachable, &self.options.with_vended(vended))?;
        Ok(Rc::new(MeteredStore::new(store, self.meter.clone())))
    }
}

/// The served-location mapping the form gives (both fields set), if any.
pub fn served(settings: &CatalogSettings) -> Option<ServedLocation> {
    match (&settings.files_location, &settings.files_url) {
        (Some(location), Some(url)) => Some(ServedLocation::new(location, url)),
        _ => None,
    }
}

/// The secrets the form gives.
pub fn secrets(settings: &CatalogSettings) -> CatalogSecrets {
    CatalogSecrets {
        token: settings.token.clone(),
        credential: settings.credential.clone(),
    }
}

/// Connects to the catalog at `address` over `fetch`, its tables' stores opened with `options`
/// and `settings` and counted into `meter`.
pub async fn open(
    address: &CatalogAddress,
    options: &StoreOptions,
    settings: &CatalogSettings,
    meter: Arc<IoMeter>,
) -> Result<(Catalog, ServiceKind), String> {
    let kind = match address {
        CatalogAddress::PaimonRest { .. } => ServiceKind::Paimon,
        CatalogAddress::IcebergRest { .. } => ServiceKind::Iceberg,
        CatalogAddress::Warehouse(uri) => return Err(format!("{uri} is not a catalog service")),
    };
    let stores = Rc::new(BrowserStores {
        options: options.clone(),
        served: served(settings),
        meter,
    });
    let text = describe(address);
    let transport = Rc::new(FetchTransport::with_timeout(CATALOG_TIMEOUT));
    match address
        .open_for_browsing(secrets(settings), transport, stores)
        .await
    {
        Ok(catalog) => Ok((catalog, kind)),
        Err(e) => Err(explain(&text, address, &e).await),
    }
}

/// The address as the user would type it.
fn describe(address: &CatalogAddress) -> String {
    match address {
        CatalogAddress::Warehouse(uri) => uri.clone(),
        CatalogAddress::PaimonRest { uri, warehouse } => format!("{uri} (warehouse {warehouse})"),
        CatalogAddress::IcebergRest { uri, .. } => uri.clone(),
    }
}

/// A sentence saying why talking to the catalog at `address` (typed as `uri`) failed and what
/// to do: a request the browser stopped (CORS, or nothing answering), a refused token, or the
/// service's own answer.
pub async fn explain(
    uri: &str,
    address: &CatalogAddress,
    error: &lakescope_engine::Error,
) -> String {
    let service = match address {
        CatalogAddress::PaimonRest { uri, .. } | CatalogAddress::IcebergRest { uri, .. } => uri,
        CatalogAddress::Warehouse(uri) => uri,
    };
    let origin = origin_of(service);
    match error.catalog_status() {
        // The transport's timeout (`TransportError::Timeout`): the service answered too slowly.
        Some(None) if error.to_string().contains("no response within") => format!(
            "The catalog at {origin} did not answer within {}s. Details: {error}.",
            CATALOG_TIMEOUT.as_secs()
        ),
        Some(None) => {
            let page = web_sys::window()
                .and_then(|w| w.location().origin().ok())
                .unwrap_or_default();
            if answers(service).await {
                format!(
                    "The catalog at {origin} did not allow this page's origin (CORS): its CORS \
                     settings must allow origin {page}, the methods GET, POST, DELETE and HEAD \
                     (and OPTIONS preflight requests), and the headers Authorization and \
                     Content-Type (README: \"REST catalogs\"). Details: {error}."
                )
            } else {
                format!(
                    "Could not reach the catalog at {origin}: nothing answers there. Check the \
                     address and that the service is running. Details: {error}."
                )
            }
        }
        Some(Some(status @ (401 | 403))) => {
            let secret = match address {
                CatalogAddress::IcebergRest { .. } => "token or credential",
                _ => "token",
            };
            format!(
                "The catalog at {origin} refused the {secret} (HTTP {status}): enter a valid \
                 catalog {secret}. Details: {error}."
            )
        }
        _ => format!("Could not open the catalog {uri}: {error}."),
    }
}

/// `scheme://host[:port]` of `url`.
fn origin_of(url: &str) -> String {
    web_sys::Url::new(url)
        .map(|u| u.origin())
        .unwrap_or_else(|_| url.to_string())
}

/// Whether anything answers at `url`: a `no-cors` request reaches servers that send no CORS
/// headers (its answer stays opaque), and fails only when nothing answers.
async fn answers(url: &str) -> bool {
    let Some(window) = web_sys::window() else {
        return false;
    };
    let init = web_sys::RequestInit::new();
    init.set_mode(web_sys::RequestMode::NoCors);
    let promise = window.fetch_with_str_and_init(url, &init);
    wasm_bindgen_futures::JsFuture::from(promise).await.is_ok()
}
