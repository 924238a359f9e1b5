//! Planning ahead what every view of a Paimon table reads first: the table, its latest snapshot
//! and that snapshot's manifests, which the shared handle then keeps.

use super::OpenTables;
use crate::table::Format;
use lakescope_paimon::scan::{plan, PartitionFilter};

/// How long a table's latest snapshot, once read, is worth planning ahead of the read that
/// confirms it (see [`OpenTables::prefetch`]): a table committed to since has most of its
/// manifests in common with it, so an older guess wastes little.
pub const KNOWN_LATEST_MAX_AGE_MS: i64 = 300_000;

impl OpenTables {
    /// Reads what every view of the Paimon table at `path` reads first: the table, its latest
    /// snapshot and that snapshot's manifests (the handle keeps the manifests it decoded). A
    /// snapshot read as latest in the last [`KNOWN_LATEST_MAX_AGE_MS`] is planned at once,
    /// beside the read that finds the latest now: the views still wait for that read, and plan
    /// what it finds, so a newer snapshot only costs the guess's requests. Failures are left to
    /// the views; an Iceberg table has nothing to plan ahead. The caller may drop the future to
    /// stop it.
    pub async fn prefetch(&self, path: &str) {
        if self.format(path).await == Format::Iceberg {
            return;
        }
        let guess = self.recent_latest(path, KNOWN_LATEST_MAX_AGE_MS);
        let plan_guess = async {
            if let (Some(snapshot), Ok(table)) = (&guess, self.paimon(path).await) {
                let _ = plan(&table, snapshot, &PartitionFilter::All).await;
            }
        };
        let plan_latest = async {
            if let (Ok(table), Ok(Some(snapshot))) =
                futures::join!(self.paimon(path), self.latest_snapshot(path))
            {
                if guess.as_ref().map(|g| g.id) != Some(snapshot.id) {
                    let _ = plan(&table, &snapshot, &PartitionFilter::All).await;
                }
            }
        };
        futures::join!(plan_guess, plan_latest);
    }
}
