//! The page's side of its Web Workers: the ORC/VARIANT codec worker, the SQL engine worker
//! (and uploads through it), and the port they share.

pub(crate) mod orc;
pub(crate) mod port;
pub(crate) mod sql;
pub(crate) mod upload;
