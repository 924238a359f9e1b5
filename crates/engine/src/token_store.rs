//! A Paimon REST table's store over the catalog's data token, opened again with a fresh token
//! before the current one expires (as Paimon's `RESTTokenFileIO`).

use crate::catalog::StoreOpener;
use async_trait::async_trait;
use bytes::Bytes;
use lakescope_paimon::rest::RestCatalog;
use lakescope_storage::clock::{epoch_millis, Clock};
use lakescope_storage::{Error, Listing, ObjectMeta, ObjectStore, PutOutcome, Result};
use std::cell::RefCell;
use std::ops::Range;
use std::rc::Rc;

/// How long before expiry a token is replaced at most (Paimon's
/// `RESTApi.TOKEN_EXPIRATION_SAFE_TIME_MILLIS`, one hour).
const SAFE_TIME_MILLIS: i64 = 3_600_000;

/// The store of one table, with the data token it was opened with.
pub(crate) struct TokenStore {
    catalog: RestCatalog,
    database: String,
    table: String,
    location: String,
    stores: Rc<dyn StoreOpener>,
    clock: Clock,
    /// The store and when to fetch the next token (epoch milliseconds).
    current: RefCell<(Rc<dyn ObjectStore>, i64)>,
}

impl TokenStore {
    /// Fetches a data token for `database.table` and opens its `location` with it.
    pub(crate) async fn open(
        catalog: RestCatalog,
        database: &str,
        table: &str,
        location: &str,
        stores: Rc<dyn StoreOpener>,
        clock: Clock,
    ) -> crate::Result<Self> {
        let (store, refresh_at) =
            fresh(&catalog, database, table, location, &stores, &clock).await?;
        Ok(Self {
            catalog,
            database: database.to_string(),
            table: table.to_string(),
            location: location.to_string(),
            stores,
            clock,
            current: RefCell::new((store, refresh_at)),
        })
    }

    /// The current store, after opening it again with a new token once the refresh time passed.
    async fn store(&self) -> Result<Rc<dyn ObjectStore>> {
        let (store, refresh_at) = self.current.borrow().clone();
        if epoch_millis(&self.clock) < refresh_at {
            return Ok(store);
        }
        let (store, refresh_at) = fresh(
            &self.catalog,
            &self.database,
            &self.table,
            &self.location,
            &self.stores,
            &self.clock,
        )
        .await
        .map_err(|e| Error::Io {
            operation: "refreshing the data token of",
            path: self.location.clone(),
            message: e.to_string(),
        })?;
        *self.current.borrow_mut() = (store.clone(), refresh_at);
        Ok(store)
    }
}

/// A store opened with a new token, and when to replace it: an hour before the token expires,
/// or half-way through its life if it lives less than two hours (Java refreshes at every call
/// then; this asks once per half-life).
async fn fresh(
    catalog: &RestCatalog,
    database: &str,
    table: &str,
    location: &str,
    stores: &Rc<dyn StoreOpener>,
    clock: &Clock,
) -> crate::Result<(Rc<dyn ObjectStore>, i64)> {
    let now = epoch_millis(clock);
    let token = catalog.data_token(database, table).await?;
    let life = token.expires_at_millis.saturating_sub(now).max(0);
    let refresh_at = token.expires_at_millis - SAFE_TIME_MILLIS.min(life / 2);
    Ok((stores.open_vended(location, &token.token)?, refresh_at))
}

#[async_trait(?Send)]
impl ObjectStore for TokenStore {
    fn describe(&self) -> String {
        self.current.borrow().0.describe()
    }
    fn root_uri(&self) -> Option<String> {
        self.current.borrow().0.root_uri()
    }

    async fn get(&self, path: &str) -> Result<Bytes> {
        self.store().await?.get(path).await
    }

    async fn get_range(&self, path: &str, range: Range<u64>) -> Result<Bytes> {
        self.store().await?.get_range(path, range).await
    }

    async fn head(&self, path: &str) -> Result<ObjectMeta> {
        self.store().await?.head(path).await
    }

    async fn list_dir(&self, prefix: &str) -> Result<Listing> {
        self.store().await?.list_dir(prefix).await
    }

    fn lists_without_requests(&self) -> bool {
        self.current.borrow().0.lists_without_requests()
    }

    async fn put(&self, path: &str, data: Bytes) -> Result<()> {
        self.store().await?.put(path, data).await
    }

    async fn put_if_absent(&self, path: &str, data: Bytes) -> Result<PutOutcome> {
        self.store().await?.put_if_absent(path, data).await
    }

    async fn delete(&self, path: &str) -> Result<()> {
        self.store().await?.delete(path).await
    }

    async fn get_opt(&self, path: &str) -> Result<Option<Bytes>> {
        self.store().await?.get_opt(path).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lakescope_paimon::rest::RestOptions;
    use lakescope_storage::transport::CannedTransport;
    use lakescope_storage::MemoryStore;
    use std::cell::Cell;
    use std::collections::BTreeMap;
    use std::time::{Duration, SystemTime};

    /// Opens an empty memory store per location and records the access key it was given.
    #[derive(Default)]
    struct Recording(RefCell<Vec<String>>);

    impl StoreOpener for Recording {
        fn open(&self, uri: &str) -> Result<Rc<dyn ObjectStore>> {
            self.open_vended(uri, &BTreeMap::new())
        }

        fn open_vended(
            &self,
            _location: &str,
            vended: &BTreeMap<String, String>,
        ) -> Result<Rc<dyn ObjectStore>> {
            let key = vended.get("fs.s3a.access.key").cloned().unwrap_or_default();
            self.0.borrow_mut().push(key);
            Ok(Rc::new(MemoryStore::new()))
        }
    }

    fn token(key: &str, expires_at_secs: i64) -> String {
        format!(
            r#"{{"token":{{"fs.s3a.access.key":"{key}"}},"expiresAtMillis":{}}}"#,
            expires_at_secs * 1000
        )
    }

    #[tokio::test]
    async fn a_data_token_is_fetched_again_an_hour_before_it_expires() {
        // a token valid for 12 hours, then a short one (40 minutes)
        let t0 = 1_700_000_000;
        let transport = Rc::new(CannedTransport::new([
            (
                200,
                r#"{"defaults":{"data-token.enabled":"true"}}"#.to_string(),
            ),
            (200, token("k1", t0 + 12 * 3600)),
            (200, token("k2", t0 + 11 * 3600 + 40 * 60)),
            (200, token("k3", t0 + 24 * 3600)),
        ]));
        let options = RestOptions {
            warehouse: "wh".into(),
            ..RestOptions::default()
        };
        let catalog = RestCatalog::connect("http://h", &options, transport.clone())
            .await
            .unwrap();
        let now = Rc::new(Cell::new(t0 as u64));
        let seen = now.clone();
        let clock: Clock =
            Rc::new(move || SystemTime::UNIX_EPOCH + Duration::from_secs(seen.get()));
        let stores = Rc::new(Recording::default());
        let store = TokenStore::open(catalog, "d", "t", "s3://b/t", stores.clone(), clock)
            .await
            .unwrap();
        store.put("a", Bytes::from_static(b"x")).await.unwrap();
        now.set(t0 as u64 + 11 * 3600 - 1);
        store.head("a").await.unwrap();
        assert_eq!(*stores.0.borrow(), ["k1"], "still more than an hour left");
        now.set(t0 as u64 + 11 * 3600);
        let e = store.get("a").await.unwrap_err();
        assert!(e.is_not_found(), "a new store over the new token: {e}");
        assert_eq!(*stores.0.borrow(), ["k1", "k2"]);
        // a token living 40 minutes is replaced half-way (20 minutes on), not at every call
        now.set(t0 as u64 + 11 * 3600 + 19 * 60);
        store.list_dir("").await.unwrap();
        assert_eq!(stores.0.borrow().len(), 2);
        now.set(t0 as u64 + 11 * 3600 + 20 * 60);
        store.list_dir("").await.unwrap();
        assert_eq!(*stores.0.borrow(), ["k1", "k2", "k3"]);
        let asked = transport.asked();
        assert_eq!(asked.len(), 4);
        assert!(asked[1..]
            .iter()
            .all(|u| u == "http://h/v1/databases/d/tables/t/token"));
    }

    #[tokio::test]
    async fn a_failed_refresh_names_the_table_location_and_the_endpoint() {
        let transport = Rc::new(CannedTransport::new([
            (200, r#"{"defaults":{}}"#.to_string()),
            (200, token("k1", 1)),
            (503, "busy".to_string()),
        ]));
        let options = RestOptions {
            warehouse: "wh".into(),
            ..RestOptions::default()
        };
        let catalog = RestCatalog::connect("http://h", &options, transport)
            .await
            .unwrap();
        let clock: Clock = Rc::new(|| SystemTime::UNIX_EPOCH + Duration::from_secs(10));
        let stores = Rc::new(Recording::default());
        let store = TokenStore::open(catalog, "d", "t", "s3://b/t", stores, clock)
            .await
            .unwrap();
        let e = store.get("x").await.unwrap_err().to_string();
        assert!(
            e.starts_with("refreshing the data token of s3://b/t: GET http://h/v1/databases/d/tables/t/token answered 503: busy"),
            "{e}"
        );
    }
}
