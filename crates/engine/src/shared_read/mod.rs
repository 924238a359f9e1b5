//! A Paimon read shared out by split across readers that share no memory (Web Workers): each
//! reader plans the same snapshot itself and reads the splits it is handed by ticket.
//!
//! Planning is a pure function of the snapshot and the request (the manifests are immutable and
//! replayed in order), so every reader's plan lists the same splits in the same order; a ticket
//! carries the split's position and what identifies it (bucket, first file, file count), and a
//! reader whose plan differs refuses the ticket instead of reading another split's rows.

use crate::{Catalog, Error, Result, TableRef};
use lakescope_paimon::scan::Split;
use lakescope_paimon::spec::snapshot::Snapshot;
use lakescope_paimon::table::Table;
use lakescope_paimon::table_read::{ReadRequest, SnapshotReader};
use serde::{Deserialize, Serialize};

/// One split of a shared read, as a coordinator hands it to a reader.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SplitTicket {
    /// The split's position in the plan.
    pub index: usize,
    /// Its bucket.
    pub bucket: i32,
    /// Its first data file's name.
    pub first_file: String,
    /// How many data files it has.
    pub files: usize,
    /// The rows of its one file it reads (`None`: every row).
    pub rows: Option<(u64, u64)>,
}

impl SplitTicket {
    fn of(index: usize, split: &Split) -> Self {
        Self {
            index,
            bucket: split.bucket,
            first_file: split
                .files
                .first()
                .map(|f| f.file_name.clone())
                .unwrap_or_default(),
            files: split.files.len(),
            rows: split.rows.as_ref().map(|r| (r.start, r.end)),
        }
    }
}

/// A whole-table read of one snapshot, planned: its splits (an append split's files each a split
/// of their own, and a few large files cut into pieces of rows, as
/// [`SnapshotReader::take_splits_for`] cuts them for the readers), read by ticket.
pub struct SharedRead {
    table_ref: TableRef,
    table: Table,
    snapshot: Option<Snapshot>,
    request: ReadRequest,
    splits: Vec<Split>,
}

impl SharedRead {
    /// Opens the Paimon table `table_ref` names and plans a read of every column at `snapshot`
    /// (`None`: the latest; a table without snapshots has no split) for `readers` readers
    /// (every reader of one read must plan with the same number).
    pub async fn plan(
        catalog: &Catalog,
        table_ref: &TableRef,
        snapshot: Option<i64>,
        readers: usize,
    ) -> Result<Self> {
        let table = catalog.open_table(table_ref).await?;
        let snapshot = match snapshot {
            Some(id) => Some(table.snapshot(id).await?),
            None => table.latest_snapshot().await?,
        };
        let request = ReadRequest::default();
        let splits = SnapshotReader::open(&table, snapshot.as_ref(), &request)
            .await?
            .take_splits_for(readers);
        Ok(Self {
            table_ref: table_ref.clone(),
            table,
            snapshot,
            request,
            splits,
        })
    }

    /// The snapshot planned (`None`: the table has none).
    pub fn snapshot_id(&self) -> Option<i64> {
        self.snapshot.as_ref().map(|s| s.id)
    }

    /// A ticket for every split, in plan order.
    pub fn tickets(&self) -> Vec<SplitTicket> {
        self.splits
            .iter()
            .enumerate()
            .map(|(index, split)| SplitTicket::of(index, split))
            .collect()
    }

    /// A reader of the split `ticket` names, its rows in plan order; a ticket this plan does not
    /// have (another snapshot, another plan) is refused.
    pub async fn reader(&self, ticket: &SplitTicket) -> Result<SnapshotReader<'_>> {
        let split = self
            .splits
            .get(ticket.index)
            .filter(|split| SplitTicket::of(ticket.index, split) == *ticket)
            .ok_or_else(|| {
                Error::Invalid(format!(
                    "{}: split {} (bucket {}, first file {}, {} files, rows {:?}) is not in this \
                     reader's plan of snapshot {:?} ({} splits)",
                    self.table_ref,
                    ticket.index,
                    ticket.bucket,
                    ticket.first_file,
                    ticket.files,
                    ticket.rows,
                    self.snapshot_id(),
                    self.splits.len()
                ))
            })?;
        let reader = SnapshotReader::for_splits(
            &self.table,
            self.snapshot.as_ref(),
            &self.request,
            vec![split.clone()],
        )
        .await?;
        Ok(reader)
    }
}
