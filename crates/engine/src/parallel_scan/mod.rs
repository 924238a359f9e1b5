//! A scan on every core (native only): the table is planned once, its splits (a Paimon table's
//! splits, an Iceberg table's data files) become plain-data tasks that N worker threads claim one
//! by one, each reading through its own table handle, and their batches come back in plan order
//! (`lakescope scan`) or as they come (checksums).
//!
//! The same shape (plan here, plain-data splits to workers that open their own handles) is what
//! a pool of Web Workers would use in the browser; only the threads and channels are native.
//! System tables and incremental reads are read on the calling thread.

mod pool;

use crate::checksum::{touch, touch_table as touch_table_here, Touched};
use crate::scan::{ScanRequest, ScanResult};
use crate::version::{paimon_snapshot, read_branch, Version};
use crate::{Catalog, Result, TableRef};
use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use lakescope_iceberg::{PlannedRead, PlannedRows};
use lakescope_paimon::spec::snapshot::Snapshot;
use lakescope_paimon::table::Table;
use lakescope_paimon::table_read::{ReadRequest, SnapshotReader};
pub use pool::BatchMap;
use pool::{PaimonSplits, ReadJob, SplitPool, Work};
use std::num::NonZeroUsize;
use std::sync::Arc;

/// Opens, on a worker's own thread, the catalog a parallel scan reads the table through: the
/// core's stores and table handles are single-threaded, so every worker opens its own (the CLI
/// opens the same warehouse URI or catalog service again).
#[async_trait::async_trait(?Send)]
pub trait CatalogOpener: Send + Sync {
    /// The catalog, opened on the calling thread.
    async fn open_catalog(&self) -> Result<Catalog>;
}

/// In which order the batches of a parallel scan come back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SplitOrder {
    /// As a single-threaded read yields them: the batches of each split in order, the splits in
    /// plan order (a worker holds at most two batches the caller has not taken).
    Plan,
    /// As the workers produce them (for reads whose result does not depend on the order).
    Any,
}

/// Where the rows of a streamed scan ([`scan_into`]) go, in the order a single-threaded read
/// yields them.
pub trait RowSink {
    /// The rows' schema: once, before any batch (also when there are no rows).
    fn schema(&mut self, schema: &SchemaRef) -> Result<()>;
    /// The next batch; `false`: the sink wants no more (the read stops).
    fn batch(&mut self, batch: RecordBatch) -> Result<bool>;
}

/// Reads a table as [`Catalog::scan`] does, with the splits of a Paimon table read at one
/// snapshot, or the data files of an Iceberg table, read by `threads` worker threads (each
/// opening the catalog with `opener`); the rows come in the same order as with one thread. A
/// system table or an incremental read: exactly [`Catalog::scan`].
pub async fn scan(
    catalog: &Catalog,
    opener: Arc<dyn CatalogOpener>,
    table_ref: &TableRef,
    request: &ScanRequest,
    threads: NonZeroUsize,
) -> Result<ScanResult> {
    let mut rows = Collected::default();
    scan_into(catalog, opener, table_ref, request, threads, &mut rows).await?;
    Ok(ScanResult {
        schema: rows
            .schema
            .unwrap_or_else(|| Arc::new(arrow_schema::Schema::empty())),
        batches: rows.batches,
    })
}

/// [`scan`] with the batches handed to `sink` as they are read (in plan order, at most
/// `request.limit` rows), so that only the batches in flight are held: a table of any size is
/// read in bounded memory. A system table or an incremental read is read whole first
/// ([`Catalog::scan`]); one thread reads on the calling thread.
pub async fn scan_into(
    catalog: &Catalog,
    opener: Arc<dyn CatalogOpener>,
    table_ref: &TableRef,
    request: &ScanRequest,
    threads: NonZeroUsize,
    sink: &mut dyn RowSink,
) -> Result<()> {
    let whole = table_ref.system_table().is_some()
        || matches!(request.at, Version::IncrementalBetween { .. });
    if whole {
        let out = catalog.scan(table_ref, request).await?;
        sink.schema(&out.schema)?;
        for batch in out.batches {
            if !sink.batch(batch)? {
                break;
            }
        }
        return Ok(());
    }
    if let Some(table) = catalog.open_iceberg(table_ref).await? {
        let planned = crate::iceberg_scan::plan(&table, table_ref, request).await?;
        sink.schema(planned.schema())?;
        let keep: BatchMap<RecordBatch> = Arc::new(|batch| batch);
        let batches = start_iceberg(
            &table,
            table_ref,
            planned,
            opener,
            threads,
            SplitOrder::Plan,
            keep,
        )?;
        return pour(batches, request.limit, sink).await;
    }
    let main = catalog.open_table(table_ref).await?;
    let branch = read_branch(table_ref, &request.at)?
        .filter(|b| *b != main.branch_name())
        .map(str::to_string);
    let on_branch;
    let table = match &branch {
        Some(b) => {
            on_branch = main.branch(b).await?;
            &on_branch
        }
        None => &main,
    };
    let snapshot = paimon_snapshot(table, table_ref, &request.at).await?;
    let read = crate::scan::read_request(request);
    let planned = Planned {
        opener,
        table_ref,
        branch,
        snapshot,
        request: read,
    };
    let keep: BatchMap<RecordBatch> = Arc::new(|batch| batch);
    let (schema, batches) = planned
        .start(table, threads, SplitOrder::Plan, keep)
        .await?;
    sink.schema(&schema)?;
    pour(batches, request.limit, sink).await
}

/// The rows of a scan, kept whole ([`scan`]).
#[derive(Default)]
struct Collected {
    schema: Option<SchemaRef>,
    batches: Vec<RecordBatch>,
}

impl RowSink for Collected {
    fn schema(&mut self, schema: &SchemaRef) -> Result<()> {
        self.schema = Some(schema.clone());
        Ok(())
    }

    fn batch(&mut self, batch: RecordBatch) -> Result<bool> {
        self.batches.push(batch);
        Ok(true)
    }
}

/// Hands the batches of a started read to `sink`, up to `max_rows` rows (the last batch cut);
/// the read stops there or when the sink wants no more (the workers stop when `batches` is
/// dropped).
async fn pour(
    mut batches: Batches<'_, RecordBatch>,
    max_rows: Option<usize>,
    sink: &mut dyn RowSink,
) -> Result<()> {
    let mut left = max_rows;
    while left != Some(0) {
        let Some(batch) = batches.next_batch().await else {
            break;
        };
        let mut batch = batch?;
        if let Some(left) = left.as_mut() {
            batch = batch.slice(0, batch.num_rows().min(*left));
            *left -= batch.num_rows();
        }
        if !sink.batch(batch)? {
            break;
        }
    }
    Ok(())
}

/// [`crate::checksum::touch_table`] with the splits read by `threads` worker threads (each
/// opening the catalog with `opener`), each worker touching the batches it reads (the caller only
/// adds up the sums, see [`map_batches`]); one thread: exactly
/// [`crate::checksum::touch_table`]. Rows and batches are the same; the checksum may differ in
/// its last bits (floating-point sums in another order).
pub async fn touch_table(
    catalog: &Catalog,
    opener: Arc<dyn CatalogOpener>,
    table_ref: &TableRef,
    snapshot: Option<i64>,
    threads: NonZeroUsize,
) -> Result<Touched> {
    if threads.get() == 1 {
        return touch_table_here(catalog, table_ref, snapshot).await;
    }
    let touch_batch: BatchMap<(u64, f64)> = Arc::new(|batch| touch(&[batch]));
    let sums = map_batches(catalog, opener, table_ref, snapshot, threads, touch_batch).await?;
    Ok(Touched {
        rows: sums.iter().map(|(rows, _)| rows).sum(),
        checksum: sums.iter().map(|(_, checksum)| checksum).sum(),
        batches: sums.len(),
    })
}

/// What `map` makes of every batch of the whole table `table_ref` names (a Paimon table at
/// snapshot `snapshot`, `None`: the latest; an Iceberg table's data files likewise), each batch
/// mapped on the worker thread that read it, so the per-batch work of a consumer (a checksum, an
/// aggregate's partial state) runs on every core as the reading does; the results come in the
/// order the workers produce them. One thread (or a plan of one split): read and mapped on the
/// calling thread.
pub async fn map_batches<T: Send + 'static>(
    catalog: &Catalog,
    opener: Arc<dyn CatalogOpener>,
    table_ref: &TableRef,
    snapshot: Option<i64>,
    threads: NonZeroUsize,
    map: BatchMap<T>,
) -> Result<Vec<T>> {
    if let Some(table) = catalog.open_iceberg(table_ref).await? {
        let planned = crate::iceberg_scan::plan_whole(&table, table_ref, snapshot).await?;
        let batches = start_iceberg(
            &table,
            table_ref,
            planned,
            opener,
            threads,
            SplitOrder::Any,
            map,
        )?;
        return map_all(batches).await;
    }
    let table = catalog.open_table(table_ref).await?;
    let snapshot = match snapshot {
        Some(id) => Some(table.snapshot(id).await?),
        None => table.latest_snapshot().await?,
    };
    let planned = Planned {
        opener,
        table_ref,
        branch: None,
        snapshot,
        request: ReadRequest::default(),
    };
    let (_, batches) = planned.start(&table, threads, SplitOrder::Any, map).await?;
    map_all(batches).await
}

/// What the map made of every batch of a started read.
async fn map_all<T: Send + 'static>(mut batches: Batches<'_, T>) -> Result<Vec<T>> {
    let mut out = Vec::new();
    while let Some(mapped) = batches.next_batch().await {
        out.push(mapped?);
    }
    Ok(out)
}

/// Reads a planned Iceberg read here (one data file at most) or starts up to `threads` workers
/// sharing its data files; `map` is applied to every batch (on the worker that read it).
fn start_iceberg<'a, T: Send + 'static>(
    table: &'a lakescope_iceberg::Table,
    table_ref: &TableRef,
    planned: PlannedRead,
    opener: Arc<dyn CatalogOpener>,
    threads: NonZeroUsize,
    order: SplitOrder,
    map: BatchMap<T>,
) -> Result<Batches<'a, T>> {
    let files = planned.files().len();
    if files <= 1 || threads.get() == 1 {
        return Ok(Batches::IcebergHere(
            Box::new(PlannedRows::new(table, planned, None)),
            map,
        ));
    }
    let job = ReadJob {
        opener,
        table_ref: table_ref.clone(),
        work: Work::Iceberg(Box::new(planned)),
    };
    Ok(Batches::Pool(SplitPool::start(
        job,
        threads.get().min(files),
        order,
        map,
    )?))
}

/// A Paimon read resolved to one snapshot, not planned yet.
struct Planned<'a> {
    opener: Arc<dyn CatalogOpener>,
    table_ref: &'a TableRef,
    /// The branch `table` is a handle of (`None`: the handle `Catalog::open_table` gives).
    branch: Option<String>,
    snapshot: Option<Snapshot>,
    request: ReadRequest,
}

impl Planned<'_> {
    /// Plans the read on `table` (its manifests read once, here), then reads it here (one
    /// thread, or a plan of one split), or starts up to `threads` workers; `map` is applied to
    /// every batch (on the worker that read it).
    async fn start<T: Send + 'static>(
        self,
        table: &Table,
        threads: NonZeroUsize,
        order: SplitOrder,
        map: BatchMap<T>,
    ) -> Result<(SchemaRef, Batches<'_, T>)> {
        let mut reader = SnapshotReader::open(table, self.snapshot.as_ref(), &self.request).await?;
        let schema = reader.schema().clone();
        if threads.get() == 1 {
            return Ok((schema, Batches::Here(Box::new(reader), map)));
        }
        // an append split's files are independent tasks (as Paimon packs append files), and a
        // few large ones are cut into pieces of rows so that every thread stays busy
        let splits = reader.take_splits_for(threads.get());
        if splits.len() <= 1 {
            let reader =
                SnapshotReader::for_splits(table, self.snapshot.as_ref(), &self.request, splits)
                    .await?;
            return Ok((schema, Batches::Here(Box::new(reader), map)));
        }
        let workers = threads.get().min(splits.len());
        let job = ReadJob {
            opener: self.opener,
            table_ref: self.table_ref.clone(),
            work: Work::Paimon(Box::new(PaimonSplits {
                branch: self.branch,
                snapshot: self.snapshot,
                request: self.request,
                splits,
            })),
        };
        Ok((
            schema,
            Batches::Pool(SplitPool::start(job, workers, order, map)?),
        ))
    }
}

/// What a planned read's batch map made of its batches.
enum Batches<'a, T> {
    /// One thread or a plan of at most one split, read and mapped on this thread.
    Here(Box<SnapshotReader<'a>>, BatchMap<T>),
    /// An Iceberg read of at most one data file, read and mapped on this thread.
    IcebergHere(Box<PlannedRows<'a>>, BatchMap<T>),
    /// Worker threads reading the splits and mapping their batches.
    Pool(SplitPool<T>),
}

impl<T: Send + 'static> Batches<'_, T> {
    /// What the map made of the next batch (`None`: the read is over); waiting for the pool
    /// blocks this thread.
    async fn next_batch(&mut self) -> Option<Result<T>> {
        match self {
            Batches::Here(reader, map) => reader
                .next_batch()
                .await
                .map(|b| b.map(|batch| map(batch)).map_err(Into::into)),
            Batches::IcebergHere(rows, map) => rows
                .next_batch()
                .await
                .map(|b| b.map(|batch| map(batch)).map_err(Into::into)),
            Batches::Pool(pool) => pool.next_batch(),
        }
    }
}
