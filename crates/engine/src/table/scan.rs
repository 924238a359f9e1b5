//! Reading a table's rows as they come, in the spirit of iceberg-rust's `TableScanBuilder`:
//! [`Table::scan`]`.at(version).select(columns).filter(predicate).first_rows().stream()`, then
//! [`TableRows::next_batch`] until it ends (the app's Data tab shows each batch as it comes).

use super::Table;
use crate::scan::{scan_table, ScanRequest};
use crate::shared_read::{ShareRequest, SharedRead};
use crate::version::paimon_snapshot;
use crate::{Result, TableRef, Version};
use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use lakescope_iceberg::PlannedRows;
use lakescope_paimon::predicate::Predicate;
use lakescope_paimon::spec::snapshot::Snapshot;
use lakescope_paimon::table_read::{ReadRequest, SnapshotReader};
use std::collections::VecDeque;

/// Bytes of data pages the first rows wait for (see [`ReadRequest::first_batch_bytes`]).
const FIRST_BATCH_BYTES: u64 = 512 * 1024;
/// Rows of the first merged batch (see [`ReadRequest::first_batch_rows`]): a few screens.
const FIRST_BATCH_ROWS: usize = 1024;

/// A Paimon read that shows its first rows soon: a small first piece and a small first merged
/// batch.
pub fn first_rows_request() -> ReadRequest {
    ReadRequest {
        first_batch_bytes: Some(FIRST_BATCH_BYTES),
        first_batch_rows: Some(FIRST_BATCH_ROWS),
        ..ReadRequest::default()
    }
}

/// What to read of a table; [`TableScan::stream`] starts the read.
pub struct TableScan<'a> {
    table: &'a Table,
    name: TableRef,
    at: Version,
    columns: Option<Vec<String>>,
    filter: Option<Predicate>,
    audit_log: bool,
    first_rows: bool,
    latest: Option<Option<Snapshot>>,
}

impl Table {
    /// A read of this table (`name`: the table's name in errors) at its latest version, every
    /// column and row.
    pub fn scan(&self, name: TableRef) -> TableScan<'_> {
        TableScan {
            table: self,
            name,
            at: Version::Latest,
            columns: None,
            filter: None,
            audit_log: false,
            first_rows: false,
            latest: None,
        }
    }
}

impl<'a> TableScan<'a> {
    /// Reads version `at` (a Paimon branch is read whole before the first batch comes).
    pub fn at(mut self, at: Version) -> Self {
        self.at = at;
        self
    }

    /// Only these columns, in this order (`None`: all).
    pub fn select(mut self, columns: Option<Vec<String>>) -> Self {
        self.columns = columns;
        self
    }

    /// Only rows where `filter` holds (it prunes partitions and files, then filters the merged
    /// rows).
    pub fn filter(mut self, filter: Option<Predicate>) -> Self {
        self.filter = filter;
        self
    }

    /// A Paimon table's audit log: every row with its row kind (`+I`, `-U`, `+U`, `-D`) first
    /// (an Iceberg table has none: ignored there).
    pub fn audit_log(mut self, on: bool) -> Self {
        self.audit_log = on;
        self
    }

    /// The first rows come soon: a small first piece of data and a small first merged batch.
    pub fn first_rows(mut self) -> Self {
        self.first_rows = true;
        self
    }

    /// The table's latest snapshot, already read by the caller (`None`: it has none), read
    /// when the version is [`Version::Latest`] instead of asking the table again.
    pub fn latest_snapshot(mut self, latest: Option<Snapshot>) -> Self {
        self.latest = Some(latest);
        self
    }

    /// Starts the read: a Paimon table at one snapshot of its `main` branch streams batch by
    /// batch, an Iceberg table data file by data file; a Paimon branch (its audit log through
    /// `$audit_log`) is read whole through the engine's scan.
    pub async fn stream(self) -> Result<TableRows<'a>> {
        let table = match self.table {
            Table::Iceberg(t) => {
                let request = self.whole_request();
                let planned = crate::iceberg_scan::plan(t, &self.name, &request).await?;
                return Ok(TableRows {
                    schema: planned.schema().clone(),
                    snapshot_id: None,
                    rows: Rows::Iceberg(Box::new(PlannedRows::new(t, planned, None))),
                });
            }
            Table::Paimon(t) => t,
        };
        if self.at.branch().is_some() {
            let name = TableRef {
                system: self.audit_log.then(|| "audit_log".to_string()),
                ..self.name.clone()
            };
            let out = scan_table(table, &name, &self.whole_request()).await?;
            return Ok(TableRows::whole(out.schema, out.batches));
        }
        let snapshot = match (&self.at, self.latest) {
            (Version::Latest, Some(latest)) => latest,
            (at, _) => paimon_snapshot(table, &self.name, at).await?,
        };
        let base = if self.first_rows {
            first_rows_request()
        } else {
            ReadRequest::default()
        };
        let request = ReadRequest {
            columns: self.columns,
            with_row_kind: self.audit_log,
            filter: self.filter,
            ..base
        };
        let reader = SnapshotReader::open(table, snapshot.as_ref(), &request).await?;
        Ok(TableRows {
            schema: reader.schema().clone(),
            snapshot_id: snapshot.map(|s| s.id),
            rows: Rows::Streaming(Box::new(reader)),
        })
    }

    /// The read planned to be shared out by split among `readers` readers
    /// ([`crate::shared_read`]): a Paimon table at one snapshot of its `main` branch (`None`
    /// for an Iceberg table or a branch, which [`TableScan::stream`] reads); `filter_text` is
    /// the filter as typed, which every reader parses (the same as [`TableScan::filter`]'s).
    pub async fn shared(
        self,
        filter_text: Option<String>,
        readers: usize,
    ) -> Result<Option<SharedRead>> {
        let (Table::Paimon(table), None) = (self.table, self.at.branch()) else {
            return Ok(None);
        };
        let snapshot = match (&self.at, self.latest) {
            (Version::Latest, Some(latest)) => latest,
            (at, _) => paimon_snapshot(table, &self.name, at).await?,
        };
        let request = ShareRequest {
            columns: self.columns,
            filter: filter_text,
            with_row_kind: self.audit_log,
        };
        let read = SharedRead::of_table(
            &self.name,
            table.clone(),
            snapshot,
            request,
            readers,
            self.first_rows,
        );
        Ok(Some(read.await?))
    }

    /// The engine scan's request for a read done whole.
    fn whole_request(&self) -> ScanRequest {
        ScanRequest {
            at: self.at.clone(),
            columns: self.columns.clone(),
            filter: self.filter.clone(),
            limit: None,
        }
    }
}

/// The rows of a started read.
pub struct TableRows<'a> {
    schema: SchemaRef,
    snapshot_id: Option<i64>,
    rows: Rows<'a>,
}

enum Rows<'a> {
    /// A Paimon snapshot read split by split.
    Streaming(Box<SnapshotReader<'a>>),
    /// An Iceberg snapshot read data file by data file.
    Iceberg(Box<PlannedRows<'a>>),
    /// A read done whole, handed out batch by batch.
    Whole(VecDeque<RecordBatch>),
}

impl TableRows<'_> {
    fn whole(schema: SchemaRef, batches: Vec<RecordBatch>) -> Self {
        Self {
            schema,
            snapshot_id: None,
            rows: Rows::Whole(batches.into()),
        }
    }

    /// The schema of the batches (also meaningful when there are none).
    pub fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    /// The Paimon snapshot being read on `main` (`None`: the table has none, or the read is of
    /// a branch or an Iceberg table).
    pub fn snapshot_id(&self) -> Option<i64> {
        self.snapshot_id
    }

    /// Splits of the read in all (an Iceberg table's: its data files; a read done whole: 0).
    pub fn total_splits(&self) -> usize {
        match &self.rows {
            Rows::Streaming(reader) => reader.total_splits(),
            Rows::Iceberg(rows) => rows.total_files(),
            Rows::Whole(_) => 0,
        }
    }

    /// Splits not read yet.
    pub fn remaining_splits(&self) -> usize {
        match &self.rows {
            Rows::Streaming(reader) => reader.remaining_splits(),
            Rows::Iceberg(rows) => rows.remaining_files(),
            Rows::Whole(_) => 0,
        }
    }

    /// The next batch of rows (`None`: the read is over).
    pub async fn next_batch(&mut self) -> Option<Result<RecordBatch>> {
        match &mut self.rows {
            Rows::Streaming(reader) => reader.next_batch().await.map(|b| b.map_err(Into::into)),
            Rows::Iceberg(rows) => rows.next_batch().await.map(|b| b.map_err(Into::into)),
            Rows::Whole(batches) => batches.pop_front().map(Ok),
        }
    }
}
