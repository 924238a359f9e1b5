//! Tags and rollback of a table: Paimon's `create_tag`, `delete_tag` and `rollback_to`,
//! committed on the table's own files; an Iceberg table's refs are refused by name.

use super::Table;
use crate::{Error, Result};
use lakescope_paimon::commit::tags::{create_tag, delete_tag, rollback_to, RollbackTarget};
use lakescope_paimon::write::WriteEnv;

pub use lakescope_paimon::commit::tags::Rollback;

impl Table {
    /// Creates the tag `name` on snapshot `snapshot_id` (`None`: the latest); returns the id of
    /// the snapshot it names.
    pub async fn create_tag(
        &self,
        name: &str,
        snapshot_id: Option<i64>,
        env: &dyn WriteEnv,
    ) -> Result<i64> {
        let table = self.paimon_for("creating a tag")?;
        let tag = create_tag(table, name, snapshot_id, None, env).await?;
        Ok(tag.snapshot.id)
    }

    /// Deletes the tag `name`; `false`: there is no such tag.
    pub async fn delete_tag(&self, name: &str) -> Result<bool> {
        let table = self.paimon_for("deleting a tag")?;
        Ok(delete_tag(table, name).await?.is_some())
    }

    /// Rolls the table back to snapshot `id`: every newer snapshot and the tags on them are
    /// deleted.
    pub async fn rollback_to_snapshot(&self, id: i64) -> Result<Rollback> {
        let table = self.paimon_for("rolling back")?;
        Ok(rollback_to(table, RollbackTarget::Snapshot(id)).await?)
    }

    /// The Paimon handle, or an error naming `action` and the Iceberg table it is refused on.
    fn paimon_for(&self, action: &str) -> Result<&lakescope_paimon::table::Table> {
        match self {
            Table::Paimon(t) => Ok(t),
            Table::Iceberg(t) => Err(Error::Invalid(format!(
                "{}: {action} is done on Paimon tables; an Iceberg table's tags and rollback are not written by lakescope",
                t.key()
            ))),
        }
    }
}
