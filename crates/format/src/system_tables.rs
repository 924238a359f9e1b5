//! The names of Paimon's system tables (`t$snapshots`, ...): those lakescope serves and those it
//! knows but does not serve, for the readers and for SQL validation.

/// Names of the system tables this reader serves.
pub const SYSTEM_TABLES: &[&str] = &[
    "snapshots",
    "schemas",
    "options",
    "tags",
    "branches",
    "files",
    "manifests",
    "partitions",
    "buckets",
    "audit_log",
    "ro",
    "consumers",
    "table_indexes",
    "row_tracking",
    "statistics",
    "binlog",
    "file_indexes",
    "file_key_ranges",
    "aggregation_fields",
];

/// System tables of Paimon 0.9–2.x (Java's `SystemTableLoader`) that this reader does not serve:
/// asking for one is "unsupported", not "not found", so a user knows the name is right.
pub const NOT_SERVED: &[&str] = &[
    "all_table_options",
    "catalog_options",
    "all_partitions",
    "all_tables",
    "source_table_lineage",
    "sink_table_lineage",
];
