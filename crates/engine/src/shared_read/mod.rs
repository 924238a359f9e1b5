//! A Paimon read shared out by split across readers that share no memory (Web Workers): each
//! reader plans the same snapshot itself and reads the splits it is handed by ticket.
//!
//! Planning is a pure function of the snapshot and the request (the manifests are immutable and
//! replayed in order), so every reader's plan lists the same splits in the same order; a ticket
//! carries the split's position and what identifies it (bucket, first file, file count), and a
//! reader whose plan differs refuses the ticket instead of reading another split's rows. The
//! coordinator hands out [`SharePlan`] (what the readers plan) and puts the splits' batches back
//! in plan order with [`InOrder`].

mod in_order;

pub use in_order::InOrder;

use crate::scan::parse_filter;
use crate::table::first_rows_request;
use crate::{Catalog, Error, Result, TableRef};
use arrow_schema::SchemaRef;
use lakescope_paimon::scan::Split;
use lakescope_paimon::spec::snapshot::Snapshot;
use lakescope_paimon::table::Table;
use lakescope_paimon::table_read::{ReadRequest, SnapshotReader};
use serde::{Deserialize, Serialize};
use std::rc::Rc;

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

/// What a shared read reads, as plain data every reader turns into the same [`ReadRequest`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShareRequest {
    /// Only these columns, in this order (`None`: all).
    pub columns: Option<Vec<String>>,
    /// A row filter in [`parse_filter`]'s syntax (`None`: every row).
    pub filter: Option<String>,
    /// The audit log: every row with its row kind first.
    pub with_row_kind: bool,
}

impl ShareRequest {
    fn read_request(&self, first_rows: bool) -> Result<ReadRequest> {
        let base = if first_rows {
            first_rows_request()
        } else {
            ReadRequest::default()
        };
        Ok(ReadRequest {
            columns: self.columns.clone(),
            filter: self.filter.as_deref().map(parse_filter).transpose()?,
            with_row_kind: self.with_row_kind,
            ..base
        })
    }
}

/// What every reader of one shared read plans: the table, the snapshot, the schema the
/// coordinator reads with, the request and the number of readers the splits were cut for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SharePlan {
    /// The table (its `main` branch).
    pub table: TableRef,
    /// The snapshot (`None`: the table has none).
    pub snapshot: Option<i64>,
    /// The id of the table's current schema at the coordinator: a reader whose table has
    /// another one (altered since) refuses the plan.
    pub schema_id: i64,
    /// What is read.
    pub request: ShareRequest,
    /// The readers the splits were cut for.
    pub readers: usize,
}

/// A read of one snapshot, planned: its splits (an append split's files each a split of their
/// own, and, for more than one reader, a few large files cut into pieces of rows as
/// [`SnapshotReader::take_splits_for`] cuts them), read by ticket.
pub struct SharedRead {
    table_ref: TableRef,
    table: Rc<Table>,
    snapshot: Option<Snapshot>,
    request: ShareRequest,
    readers: usize,
    read_request: ReadRequest,
    /// The schema of every split's batches.
    schema: SchemaRef,
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
        let table = Rc::new(catalog.open_table(table_ref).await?);
        let snapshot = match snapshot {
            Some(id) => Some(table.snapshot(id).await?),
            None => table.latest_snapshot().await?,
        };
        Self::of_table(
            table_ref,
            table,
            snapshot,
            ShareRequest::default(),
            readers,
            false,
        )
        .await
    }

    /// Plans `request` of the open table `table` (`table_ref`: its name) at `snapshot` for
    /// `readers` readers; `first_rows`: this reader's splits each start with a small batch (see
    /// [`first_rows_request`]; the plan is the same either way).
    pub async fn of_table(
        table_ref: &TableRef,
        table: Rc<Table>,
        snapshot: Option<Snapshot>,
        request: ShareRequest,
        readers: usize,
        first_rows: bool,
    ) -> Result<Self> {
        let read_request = request.read_request(first_rows)?;
        // The plan must not depend on `first_rows`: only [`ReadRequest::memory_budget`] and
        // [`ReadRequest::first_batch_bytes`] decide whether files are cut, so plan without them.
        let plan_request = ReadRequest {
            first_batch_bytes: None,
            first_batch_rows: None,
            ..read_request.clone()
        };
        let mut planned = SnapshotReader::open(&table, snapshot.as_ref(), &plan_request).await?;
        let schema = planned.schema().clone();
        let splits = planned.take_splits_for(readers);
        Ok(Self {
            table_ref: table_ref.clone(),
            table,
            snapshot,
            request,
            readers,
            read_request,
            schema,
            splits,
        })
    }

    /// Plans what a coordinator's [`SharedRead::share_plan`] describes, on a table opened from
    /// `catalog`: refused when the table's current schema or the snapshot is not the
    /// coordinator's.
    pub async fn follow(catalog: &Catalog, plan: &SharePlan) -> Result<Self> {
        let table = Rc::new(catalog.open_table(&plan.table).await?);
        let schema_id = table.current_schema().id;
        if schema_id != plan.schema_id {
            return Err(Error::Invalid(format!(
                "{}: this reader opened schema {schema_id}, the shared read is planned with \
                 schema {} (the table changed since)",
                plan.table, plan.schema_id
            )));
        }
        let snapshot = match plan.snapshot {
            Some(id) => Some(table.snapshot(id).await?),
            None => None,
        };
        Self::of_table(
            &plan.table,
            table,
            snapshot,
            plan.request.clone(),
            plan.readers,
            false,
        )
        .await
    }

    /// What another reader plans to read this read's splits by ticket.
    pub fn share_plan(&self) -> SharePlan {
        SharePlan {
            table: self.table_ref.clone(),
            snapshot: self.snapshot_id(),
            schema_id: self.table.current_schema().id,
            request: self.request.clone(),
            readers: self.readers,
        }
    }

    /// The snapshot planned (`None`: the table has none).
    pub fn snapshot_id(&self) -> Option<i64> {
        self.snapshot.as_ref().map(|s| s.id)
    }

    /// Bytes of the data files the read's splits read (as the manifests state them).
    pub fn data_bytes(&self) -> u64 {
        let files = self.splits.iter().flat_map(|s| s.files.iter());
        files.map(|f| u64::try_from(f.file_size).unwrap_or(0)).sum()
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
            &self.read_request,
            vec![split.clone()],
        )
        .await?;
        Ok(reader)
    }

    /// The schema of every split's batches.
    pub fn schema(&self) -> &SchemaRef {
        &self.schema
    }
}
