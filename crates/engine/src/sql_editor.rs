//! The SQL console's and the DDL tab's editor services: highlighting, completion, positions in
//! a script, and a Paimon table's schema with its `SHOW CREATE TABLE` text.

use crate::open_tables::OpenTables;
use crate::table::Format;
use crate::Result;

pub use lakescope_paimon::spec::schema::TableSchema;
pub use lakescope_sql::editor::{complete, highlight, Completion, Segment, SuggestionKind};
pub use lakescope_sql::show::quote_ident;
pub use lakescope_sql::{show_create_table, Pos};

/// The current schema of the Paimon table at `path`, as the DDL tab edits it (`None`: an
/// Iceberg table, whose schema the DDL tab does not edit).
pub async fn ddl_schema(tables: &OpenTables, path: &str) -> Result<Option<TableSchema>> {
    if tables.format(path).await == Format::Iceberg {
        return Ok(None);
    }
    let table = tables.paimon(path).await?;
    Ok(Some((**table.current_schema()).clone()))
}
