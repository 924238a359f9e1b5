//! The engine façade: what the web app and the CLI both call, so every feature is testable natively.
#![warn(missing_docs)]

pub mod blob;
#[cfg(all(feature = "browser", target_arch = "wasm32"))]
pub mod browser_env;
mod browsing_catalog;
pub mod canonical;
pub mod catalog;
pub mod catalog_address;
pub mod catalog_backend;
pub mod catalog_services;
pub mod checksum;
pub mod codecs;
pub mod csv_text;
pub mod error;
pub mod format_types;
pub mod iceberg_ddl;
pub mod iceberg_scan;
pub mod open_tables;
#[cfg(not(target_arch = "wasm32"))]
pub mod parallel_scan;
pub mod plan;
pub mod scan;
mod scan_request;
pub mod served_location;
pub mod session;
pub mod shared_read;
pub mod sql_editor;
pub mod table;
pub mod table_ref;
mod token_store;
pub mod upload;
pub mod version;
pub mod versions;
pub mod warehouse_catalog;
pub mod warm_up;
pub mod write;

pub use catalog::{Catalog, DatabaseEntry, FoundTable, StoreOpener, TableEntry, TableLocation};
pub use catalog_address::{CatalogAddress, CatalogSecrets};
pub use catalog_backend::CatalogBackend;
pub use error::{Error, Result};
pub use served_location::ServedLocation;
pub use table_ref::TableRef;
pub use version::Version;
