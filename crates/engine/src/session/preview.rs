//! A dry run of ALTER TABLE: the table's current schema and the one the statement would commit (nothing is written).

use super::{Session, StatementError, StatementResult};
use lakescope_paimon::spec::schema::TableSchema;
use lakescope_sql::ast::AlterAction;
use lakescope_sql::{Pos, Statement, TableFormat, ValidationContext};
use serde::{Deserialize, Serialize};

/// What an ALTER TABLE would do to its table's schema, or why it cannot run (externally tagged,
/// as [`super::ConsoleEvent`] that carries it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PreviewOutcome {
    /// The statement is valid: the schema now and the next one (`id` + 1, not committed), each
    /// as the JSON of a schema file (`TableSchema::from_json` reads it: the page parses it with
    /// the code it reads schema files with, instead of a second deserializer for this event).
    Schemas {
        /// The qualified name of the altered table (`catalog.db.table`).
        table: String,
        /// Its current schema (schema file JSON).
        current: String,
        /// The schema a commit would write (schema file JSON).
        next: String,
    },
    /// The statement does not parse, breaks a rule or is not an ALTER TABLE of a Paimon table.
    Error {
        /// Where (the offending token when known), line from 1.
        line: u64,
        /// Column from 1 (characters).
        column: u64,
        /// What went wrong.
        message: String,
    },
}

impl Session {
    /// Parses and validates `sql` (one ALTER TABLE) and applies it to its table's current schema
    /// without committing, as running it would.
    pub async fn preview_alter(&self, sql: &str) -> PreviewOutcome {
        let schemas = self
            .next_schema(sql)
            .await
            .and_then(|(table, current, next)| {
                let json = |s: &TableSchema| {
                    serde_json::to_string(s).map_err(|e| {
                        StatementError::new(Pos::new(1, 1), format!("cannot encode a schema: {e}"))
                    })
                };
                Ok((table, json(&current)?, json(&next)?))
            });
        match schemas {
            Ok((table, current, next)) => PreviewOutcome::Schemas {
                table,
                current,
                next,
            },
            Err(e) => PreviewOutcome::Error {
                line: e.pos.line,
                column: e.pos.column,
                message: e.message,
            },
        }
    }

    async fn next_schema(&self, sql: &str) -> StatementResult<(String, TableSchema, TableSchema)> {
        let mut parsed = lakescope_sql::parse_script(sql).into_iter();
        let first = parsed
            .next()
            .ok_or_else(|| StatementError::new(Pos::new(1, 1), "type an ALTER TABLE statement"))?;
        if let Some(second) = parsed.next() {
            return Err(StatementError::new(
                second.pos,
                "one statement at a time: run scripts in the SQL tab",
            ));
        }
        let statement = first.statement.map_err(StatementError::from)?;
        let Statement::AlterTable(a) = &statement else {
            return Err(StatementError::new(
                first.pos,
                "this editor previews ALTER TABLE statements: run other statements in the SQL tab",
            ));
        };
        if matches!(
            a.action,
            AlterAction::RenameTo(_) | AlterAction::DropPartitions { .. }
        ) {
            return Err(StatementError::new(
                first.pos,
                "RENAME TO and DROP PARTITION change no schema: run them in the SQL tab",
            ));
        }
        let target = self.resolve(&a.name).await?;
        target.refuse_non_main(&[], a.name.pos, "ALTER TABLE on")?;
        target.refuse_service(a.name.pos, "ALTER TABLE")?;
        let table = self.paimon_table(&target, a.name.pos, "altering").await?;
        let current = (**table.current_schema()).clone();
        lakescope_sql::validate(
            &statement,
            &ValidationContext {
                format: TableFormat::Paimon,
                existing: Some(&current),
            },
        )?;
        let next = lakescope_sql::apply_alter(&current, a);
        Ok((target.qualified(), current, next))
    }
}
