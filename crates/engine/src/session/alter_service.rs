//! ALTER TABLE on a Paimon REST catalog's table: the next schema as Flink's Paimon catalog
//! would compute it, sent as the catalog's `alterTable` schema changes, then checked against
//! the schema the service wrote.

use super::catalogs::Resolved;
use super::{at, Outcome, Session, StatementError, StatementResult};
use lakescope_paimon::rest::schema_changes;
use lakescope_paimon::spec::schema::TableSchema;
use lakescope_paimon::table::Table;
use lakescope_sql::ast::{AlterAction, AlterTable};
use lakescope_sql::{apply_alter, Pos};

impl Session {
    /// ALTER TABLE … SET / RESET / ADD / MODIFY / RENAME col / DROP col on a Paimon REST
    /// catalog's table (validated): the change goes to the service's alterTable endpoint, which
    /// writes the next schema; RENAME TO, partitions and key changes are refused by name.
    pub(super) async fn alter_service_table(
        &self,
        target: &Resolved,
        table: &Table,
        a: &AlterTable,
        pos: Pos,
    ) -> StatementResult<Outcome> {
        let refused = |what: &str| {
            StatementError::new(
                a.name.pos,
                format!(
                    "ALTER TABLE {} {what} through REST catalog {} is not supported yet (nothing was changed)",
                    target.qualified(),
                    target.catalog
                ),
            )
        };
        match &a.action {
            AlterAction::RenameTo(_) => return Err(refused("RENAME TO")),
            AlterAction::DropPartitions { .. } => return Err(refused("DROP PARTITION")),
            AlterAction::AddPartitionField(_) | AlterAction::DropPartitionField(_) => {
                return Err(refused("on partition fields"))
            }
            _ => {}
        }
        let schema = table.current_schema();
        let next = apply_alter(schema, a);
        let changes =
            schema_changes(&target.qualified(), schema, &next).map_err(|e| at(a.name.pos, e))?;
        if changes.is_empty() {
            return Ok(Outcome::Done("[INFO] Execute statement succeeded.".into()));
        }
        let (service, table_ref) = self.service_table(target, pos)?;
        service
            .alter_table(&table_ref, &changes)
            .await
            .map_err(|e| at(pos, e))?;
        // the service applied the changes itself: its schema must be the one meant
        let altered = service
            .locate(&table_ref)
            .await
            .map_err(|e| at(pos, e))?
            .open()
            .await
            .map_err(|e| at(pos, e))?;
        let written = altered.current_schema();
        if !same_schema(written, &next) {
            return Err(StatementError::new(
                pos,
                format!(
                    "ALTER TABLE {}: REST catalog {} wrote schema {} that differs from the one meant (columns {:?}, options {:?}); it is committed, check it with DESCRIBE",
                    target.qualified(),
                    target.catalog,
                    written.id,
                    written.fields.iter().map(|f| &f.name).collect::<Vec<_>>(),
                    written.options
                ),
            ));
        }
        Ok(Outcome::Done(format!(
            "[INFO] {}: schema {} committed through REST catalog {}",
            target.qualified(),
            written.id,
            target.catalog
        )))
    }
}

/// Whether two schemas have the same columns (ids, names, types, comments), keys, options and
/// comment (their ids and times aside).
fn same_schema(a: &TableSchema, b: &TableSchema) -> bool {
    a.fields == b.fields
        && a.primary_keys == b.primary_keys
        && a.partition_keys == b.partition_keys
        && a.options == b.options
        && a.comment == b.comment
}
