//! An Iceberg REST catalog client: configuration, namespaces, tables, loadTable with vended
//! credentials, create, and commits as requirements + updates (retried on `409`).

pub mod catalog;
pub mod changes;
pub mod client;
pub mod types;

pub use catalog::{RestCatalog, TableStores, WarehouseStores};
pub use client::{CommitOutcome, RestClient, RestOptions};
