//! Types of the format crates that the engine's answers carry and the app names, re-exported
//! here because the engine has nothing to add to them.

pub use lakescope_iceberg::inspect::{SnapshotInfo, SpecInfo, TableInfo};
pub use lakescope_iceberg::inventory::Content;
pub use lakescope_paimon::diff::PartitionCounts;
pub use lakescope_paimon::table::MAIN_BRANCH;
