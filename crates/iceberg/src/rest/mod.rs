//! An Iceberg REST catalog client: configuration, namespaces, tables, loadTable with vended
//! credentials, create, and commits as requirements + updates (retried on `409`); a bearer token
//! or OAuth2 client credentials.

pub mod catalog;
pub mod changes;
pub mod client;
mod oauth;
pub mod types;

pub use catalog::{RestCatalog, TableStores, WarehouseStores};
pub use client::{CommitOutcome, RestClient, RestOptions};
