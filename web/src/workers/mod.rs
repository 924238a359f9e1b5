//! The page's side of its Web Workers: the ORC/VARIANT codec worker, the SQL engine worker
//! (and uploads through it), the Data tab's scan pool (and the app's side as one of its workers),
//! and the port they share.

pub(crate) mod orc;
pub(crate) mod port;
pub(crate) mod scan_pool;
pub(crate) mod scan_serve;
pub(crate) mod sql;
pub(crate) mod upload;
