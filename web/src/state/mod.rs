//! Application state and data loading: the URL route, the opened warehouse or catalog and its
//! caches, the version pickers' lists, and the warm-up reads.

pub(crate) mod catalog_service;
pub(crate) mod route;
pub(crate) mod versions;
pub(crate) mod warehouse;
pub(crate) mod warm_up;
