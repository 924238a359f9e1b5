//! Reusable components: the data grid, the timeline chart, progress, the DDL editor, the
//! catalog sidebar, the connection forms, remembered secrets, the theme switch.

pub(crate) mod catalog_connect;
pub(crate) mod catalog_tree;
pub(crate) mod connect;
pub(crate) mod ddl_editor;
pub(crate) mod engine_status;
pub(crate) mod grid;
pub(crate) mod progress;
pub(crate) mod remembered;
pub(crate) mod theme;
pub(crate) mod timeline;
