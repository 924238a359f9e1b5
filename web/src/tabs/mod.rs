//! The table page and its tabs (each serving both formats), with the actions they offer on a
//! writable warehouse.

pub(crate) mod compact_action;
pub(crate) mod data;
pub(crate) mod ddl;
pub(crate) mod diff;
pub(crate) mod files;
pub(crate) mod files_content;
pub(crate) mod files_lsm;
pub(crate) mod overview;
pub(crate) mod panel;
pub(crate) mod schema;
pub(crate) mod snapshots;
pub(crate) mod sql;
pub(crate) mod tag_actions;
pub(crate) mod upload_action;
