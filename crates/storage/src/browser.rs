//! The one browser opener (the app and its workers): `http(s)://` and page-relative URLs, `s3://`, `opfs://`.

use crate::retry::SeededJitter;
use crate::transport::{BrowserTimer, FetchTransport};
use crate::uri::{open_remote, parse_s3_uri, StoreOptions};
use crate::{Error, HttpStore, IndexedStore, ObjectStore, OpfsStore, Result};
use std::rc::Rc;

/// What kind of warehouse a URI names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scheme {
    /// `http(s)://` or a URL relative to the page (a static host, listed by its index file).
    Http,
    /// `s3://bucket/prefix` (`s3a://` too).
    S3,
    /// `opfs://name`: a folder of the browser's Origin Private File System.
    Opfs,
    /// `memory://` (tests).
    Memory,
}

/// The scheme of `uri`; an error names the schemes the browser can open.
pub fn scheme(uri: &str) -> Result<Scheme> {
    let uri = uri.trim();
    let Some((scheme, _)) = uri.split_once("://") else {
        return Ok(Scheme::Http); // relative to the page
    };
    match scheme.to_ascii_lowercase().as_str() {
        "http" | "https" => Ok(Scheme::Http),
        "s3" | "s3a" => Ok(Scheme::S3),
        "opfs" => Ok(Scheme::Opfs),
        "memory" => Ok(Scheme::Memory),
        other => Err(Error::Unsupported {
            store: uri.to_string(),
            operation: format!(
                "opening {other}:// warehouses in the browser (use http(s)://, s3://BUCKET/PREFIX \
                 or opfs://NAME)"
            ),
        }),
    }
}

/// Opens the warehouse at `uri` in a window or a dedicated worker.
///
/// - `http(s)://` and page-relative URLs: read-only [`HttpStore`], listed through the generated
///   index file ([`IndexedStore`]); `options` are not used.
/// - `s3://bucket/prefix`: [`crate::s3::S3Store`] over `fetch`, signed in wasm with the keys of
///   `options.credentials`, or through `options.presign_endpoint`, or anonymous; with the
///   concurrency limit and the immutable-object cache of `options`.
/// - `opfs://name`: [`OpfsStore`] (read-write, atomic create).
pub fn open(uri: &str, options: &StoreOptions) -> Result<Rc<dyn ObjectStore>> {
    let uri = uri.trim();
    if uri.is_empty() {
        return Err(Error::Unsupported {
            store: String::new(),
            operation: "opening an empty warehouse URI".to_string(),
        });
    }
    match scheme(uri)? {
        Scheme::Http => Ok(Rc::new(IndexedStore::new(HttpStore::new(uri)))),
        Scheme::Opfs => Ok(Rc::new(OpfsStore::from_uri(uri)?)),
        Scheme::S3 if parse_s3_uri(uri).is_none() => Err(Error::Unsupported {
            store: uri.to_string(),
            operation: "opening (expected s3://BUCKET/PREFIX)".to_string(),
        }),
        Scheme::S3 | Scheme::Memory => {
            let seed = js_sys::Date::now().to_bits() ^ (js_sys::Math::random().to_bits() >> 1);
            open_remote(
                uri,
                options,
                Rc::new(FetchTransport::default()),
                Rc::new(BrowserTimer),
                Rc::new(SeededJitter::new(seed)),
            )
        }
    }
}

/// Milliseconds since the Unix epoch (`Date.now()`), in a window or a worker.
pub fn now_millis() -> i64 {
    js_sys::Date::now() as i64
}

/// Fills `bytes` from the global `crypto.getRandomValues` (window or worker), or from
/// `Math.random` where there is no crypto object.
pub fn random_bytes(bytes: &mut [u8]) {
    use wasm_bindgen::JsCast;
    let filled = js_sys::Reflect::get(&js_sys::global(), &"crypto".into())
        .ok()
        .and_then(|c| c.dyn_into::<web_sys::Crypto>().ok())
        .and_then(|crypto| crypto.get_random_values_with_u8_array(bytes).ok())
        .is_some();
    if !filled {
        for chunk in bytes.chunks_mut(4) {
            let bits = (js_sys::Math::random() * f64::from(u32::MAX)) as u32;
            chunk.copy_from_slice(&bits.to_le_bytes()[..chunk.len()]);
        }
    }
}
