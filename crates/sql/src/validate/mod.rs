//! Validation of parsed statements with Flink's and Paimon's rules (pure: existing schemas are passed in).

mod alter;
mod casts;
mod create;
pub mod options;

use crate::ast::*;
use crate::error::{Result, SqlError};
use lakescope_format::spec::schema::TableSchema;

pub use casts::supports_cast;

/// The table format of the catalog a statement runs in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TableFormat {
    /// A Paimon catalog (or a table with `'connector' = 'paimon'`).
    #[default]
    Paimon,
    /// An Iceberg catalog.
    Iceberg,
    /// Not known (e.g. Flink's in-memory `default_catalog`): only format-independent checks.
    Unknown,
}

/// What validation knows beyond the statement.
#[derive(Debug, Clone, Copy, Default)]
pub struct ValidationContext<'a> {
    /// The format of the current catalog.
    pub format: TableFormat,
    /// The current schema of the table an ALTER TABLE / INSERT targets, when the engine has it.
    pub existing: Option<&'a TableSchema>,
}

const PROCEDURES: &[&str] = &[
    "create_tag",
    "delete_tag",
    "rollback_to",
    "compact",
    "expire_snapshots",
    "create_branch",
    "delete_branch",
    "fast_forward",
    "rename_tag",
    "replace_tag",
    "expire_partitions",
    "create_tag_from_timestamp",
    "rollback_to_timestamp",
    "remove_orphan_files",
    "reset_consumer",
    "mark_partition_done",
    "expire_tags",
    "compact_database",
    "drop_partition",
    "merge_into",
    "migrate_table",
    "repair",
    "rewrite_file_index",
    "trigger_tag_automatic_creation",
];

/// Validates one statement; the error points at the offending token.
pub fn validate(stmt: &Statement, ctx: &ValidationContext) -> Result<()> {
    match stmt {
        Statement::CreateCatalog { name, options } => create_catalog(name, options),
        Statement::CreateTable(t) => create::create_table(t, ctx),
        Statement::AlterTable(a) => alter::alter_table(a, ctx),
        Statement::Query(q) => query(q),
        Statement::Insert(i) => {
            options::check_hints(&i.hints)?;
            if let InsertSource::Select(q) = &i.source {
                query(q)?;
            }
            if let Some(schema) = ctx.existing {
                for p in &i.partition {
                    if !schema.partition_keys.contains(&p.key) {
                        return Err(SqlError::validation(
                            p.key_pos,
                            format!(
                                "'{}' is not a partition column of the table; partition keys: [{}]",
                                p.key,
                                schema.partition_keys.join(", ")
                            ),
                        ));
                    }
                }
                insert_columns(i, schema)?;
            }
            Ok(())
        }
        Statement::Set(Some(o)) if o.key == "execution.runtime-mode" => {
            let v = o.value.to_ascii_lowercase();
            if !["batch", "streaming", "automatic"].contains(&v.as_str()) {
                return Err(SqlError::validation(
                    o.value_pos,
                    format!("Could not parse value '{}' for key 'execution.runtime-mode': possible values are [streaming, batch, automatic]", o.value),
                ));
            }
            Ok(())
        }
        Statement::Call { procedure, .. } => {
            let name = procedure.name().to_ascii_lowercase();
            let in_sys =
                procedure.parts.len() == 2 && procedure.parts[0].eq_ignore_ascii_case("sys");
            if !in_sys || !PROCEDURES.contains(&name.as_str()) {
                return Err(SqlError::validation(
                    procedure.pos,
                    format!("Procedure '{procedure}' is not found; Paimon procedures are called as sys.<name>, e.g. sys.create_tag"),
                ));
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

/// Column list and VALUES arity of an INSERT against the target's schema.
fn insert_columns(i: &Insert, schema: &TableSchema) -> Result<()> {
    for c in &i.columns {
        if schema.field(&c.name).is_none() {
            return Err(SqlError::validation(
                c.pos,
                format!("Unknown target column '{}' of table {}", c.name, i.table),
            ));
        }
        if i.partition.iter().any(|p| p.key == c.name) {
            return Err(SqlError::validation(
                c.pos,
                format!("Column '{}' is a static partition column (PARTITION clause) and cannot also be in the column list", c.name),
            ));
        }
    }
    let expected = if i.columns.is_empty() {
        schema.fields.len().saturating_sub(i.partition.len())
    } else {
        i.columns.len()
    };
    if let InsertSource::Values { rows, .. } = &i.source {
        for row in rows {
            if row.len() != expected {
                let pos = row
                    .first()
                    .map(|e| sqlparser::ast::Spanned::span(e).start)
                    .filter(|l| l.line > 0)
                    .map(|l| crate::error::Pos::new(l.line, l.column.max(1)))
                    .unwrap_or(i.table.pos);
                return Err(SqlError::validation(
                    pos,
                    format!(
                        "Column types of query result and sink for '{}' do not match: the query has {} columns, the sink expects {expected}",
                        i.table,
                        row.len()
                    ),
                ));
            }
        }
    }
    Ok(())
}

fn query(q: &QueryStatement) -> Result<()> {
    for t in &q.tables {
        options::check_hints(&t.hints)?;
        if let Some(sys) = &t.system_table {
            const SYSTEM: &[&str] = &[
                "snapshots",
                "schemas",
                "options",
                "files",
                "tags",
                "branches",
                "consumers",
                "table_indexes",
                "manifests",
                "partitions",
                "buckets",
                "audit_log",
                "binlog",
                "ro",
                "read_optimized",
                "aggregation_fields",
                "statistics",
                "file_indexes",
                "file_key_ranges",
                "file_keys",
                "row_tracking",
                "history",
                "metadata_log_entries",
                "refs",
                "entries",
                "all_data_files",
            ];
            let base = sys.split('$').next().unwrap_or(sys);
            let lower = base.to_ascii_lowercase();
            if lakescope_format::system_tables::NOT_SERVED.contains(&lower.as_str()) {
                return Err(SqlError::validation(
                    t.name.pos,
                    format!(
                        "System table '{sys}' in '{}': Paimon has it, lakescope does not read it yet (it reads: {})",
                        t.name,
                        lakescope_format::system_tables::SYSTEM_TABLES.join(", ")
                    ),
                ));
            }
            if !SYSTEM.contains(&lower.as_str()) && !base.starts_with("branch_") {
                return Err(SqlError::validation(
                    t.name.pos,
                    format!(
                        "Unknown system table '{}' in '{}'; known: {}",
                        sys,
                        t.name,
                        SYSTEM.join(", ")
                    ),
                ));
            }
        }
    }
    Ok(())
}

fn option<'a>(options: &'a [OptionEntry], key: &str) -> Option<&'a OptionEntry> {
    options.iter().find(|o| o.key == key)
}

/// Options of a Paimon REST catalog (Paimon's `RESTCatalogOptions` with a bearer token).
const PAIMON_REST_OPTIONS: [&str; 6] = [
    "type",
    "metastore",
    "uri",
    "warehouse",
    "token.provider",
    "token",
];

/// Options of an Iceberg REST catalog (Iceberg's `RESTCatalog` properties lakescope honours).
const ICEBERG_REST_OPTIONS: [&str; 9] = [
    "type",
    "catalog-type",
    "uri",
    "warehouse",
    "prefix",
    "token",
    "credential",
    "oauth2-server-uri",
    "scope",
];

fn create_catalog(name: &Ident, options: &[OptionEntry]) -> Result<()> {
    let Some(ty) = option(options, "type") else {
        return Err(SqlError::validation(
            name.pos,
            "Catalog options must contain 'type' ('paimon' or 'iceberg')",
        ));
    };
    match ty.value.as_str() {
        "paimon" => {
            if let Some(m) = option(options, "metastore") {
                if m.value.eq_ignore_ascii_case("rest") {
                    return paimon_rest(name, options);
                }
                if m.value != "filesystem" {
                    return Err(SqlError::unsupported(
                        m.value_pos,
                        format!(
                            "Paimon catalogs with 'metastore' = '{}' need a connection to the metastore service (Thrift/JDBC), which lakescope cannot open from a browser or the CLI; use a filesystem catalog (no 'metastore' option) on the same warehouse, or a REST catalog ('metastore' = 'rest')",
                            m.value
                        ),
                    ));
                }
            }
        }
        "iceberg" => match option(options, "catalog-type") {
            Some(t) if t.value.eq_ignore_ascii_case("rest") => return iceberg_rest(name, options),
            Some(t) if t.value == "hadoop" => {}
            Some(t) => {
                return Err(SqlError::unsupported(
                    t.value_pos,
                    format!("Iceberg 'catalog-type' = '{}' is not supported; lakescope reads and writes Hadoop (warehouse path) and REST catalogs", t.value),
                ))
            }
            None => {
                return Err(SqlError::unsupported(
                    ty.value_pos,
                    "Iceberg 'catalog-type' = 'hive' (the default) is not supported; lakescope reads and writes Hadoop ('catalog-type' = 'hadoop') and REST ('catalog-type' = 'rest') catalogs",
                ))
            }
        },
        "generic_in_memory" => return Ok(()),
        other => {
            return Err(SqlError::unsupported(
                ty.value_pos,
                format!("Catalog type '{other}' is not supported; use 'paimon' or 'iceberg'"),
            ))
        }
    }
    if option(options, "warehouse").is_none() {
        return Err(SqlError::validation(
            name.pos,
            "Catalog options must contain 'warehouse'",
        ));
    }
    Ok(())
}

/// Refuses, by name, an option a REST catalog would not honour (an option value is never
/// echoed: it may be a secret).
fn known_rest_options(options: &[OptionEntry], known: &[&str], what: &str) -> Result<()> {
    match options.iter().find(|o| !known.contains(&o.key.as_str())) {
        Some(o) => {
            Err(SqlError::unsupported(
                o.key_pos,
                format!(
                "{what}: option '{}' is not supported (nothing was created); lakescope takes {}",
                o.key,
                known.iter().map(|k| format!("'{k}'")).collect::<Vec<_>>().join(", ")
            ),
            ))
        }
        None => Ok(()),
    }
}

fn required<'a>(
    name: &Ident,
    options: &'a [OptionEntry],
    key: &str,
    what: &str,
) -> Result<&'a OptionEntry> {
    option(options, key)
        .ok_or_else(|| SqlError::validation(name.pos, format!("a {what} needs the option '{key}'")))
}

/// `'metastore' = 'rest'`: `uri`, `warehouse` and a bearer token (`'token.provider' = 'bear'`).
fn paimon_rest(name: &Ident, options: &[OptionEntry]) -> Result<()> {
    const WHAT: &str = "Paimon REST catalog";
    if let Some(o) = options
        .iter()
        .find(|o| o.key.starts_with("dlf.") || o.key.starts_with("token.refresh"))
    {
        return Err(SqlError::unsupported(
            o.key_pos,
            format!("option '{}': lakescope authenticates to a Paimon REST catalog with a bearer token only ('token.provider' = 'bear', 'token'); nothing was created", o.key),
        ));
    }
    known_rest_options(options, &PAIMON_REST_OPTIONS, WHAT)?;
    required(name, options, "uri", WHAT)?;
    required(name, options, "warehouse", WHAT)?;
    let provider = required(name, options, "token.provider", WHAT)?;
    if !provider.value.eq_ignore_ascii_case("bear") {
        return Err(SqlError::unsupported(
            provider.value_pos,
            format!("'token.provider' = '{}' is not supported: lakescope sends a bearer token ('token.provider' = 'bear' with 'token'); nothing was created", provider.value),
        ));
    }
    required(name, options, "token", WHAT)?;
    Ok(())
}

/// `'catalog-type' = 'rest'`: `uri`, and optionally `warehouse`, `prefix`, a bearer `token` or
/// OAuth2 client credentials (`credential` = `ID:SECRET`, `oauth2-server-uri`, `scope`).
fn iceberg_rest(name: &Ident, options: &[OptionEntry]) -> Result<()> {
    const WHAT: &str = "Iceberg REST catalog";
    known_rest_options(options, &ICEBERG_REST_OPTIONS, WHAT)?;
    required(name, options, "uri", WHAT)?;
    Ok(())
}
