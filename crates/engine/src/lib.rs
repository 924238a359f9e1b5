//! The engine façade: what the web app and the CLI both call, so every feature is testable natively.

pub mod canonical;
pub mod catalog;

pub use catalog::{Catalog, DatabaseEntry, TableEntry};
