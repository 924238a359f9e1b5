//! Parquet data files: whole-bytes decoding, batch-by-batch decoding, and ranged reads (footer +
//! needed column chunks only: whole file, one row group at a time, or a few pages at a time).

use super::parquet_pages::{self, Window};
use super::{assemble, evolution, wanted_columns, FileKind, Wanted, BATCH_SIZE};
use crate::spec::DataField;
use crate::{Error, Result};
use arrow_array::RecordBatch;
use arrow_schema::{Schema, SchemaRef};
use bytes::{Buf, Bytes};
use lakescope_storage::ObjectStore;
use parquet::arrow::arrow_reader::{
    ArrowReaderMetadata, ArrowReaderOptions, ParquetRecordBatchReader,
    ParquetRecordBatchReaderBuilder, RowSelection, RowSelectionPolicy, RowSelector,
};
use parquet::arrow::{ProjectionMask, PARQUET_FIELD_ID_META_KEY};
use parquet::basic::Compression;
use parquet::errors::ParquetError;
use parquet::file::metadata::{ParquetMetaData, ParquetMetaDataReader};
use parquet::file::reader::{ChunkReader, Length};
use parquet::schema::types::SchemaDescriptor;
use std::collections::{HashMap, VecDeque};
use std::ops::Range;
use std::sync::Arc;

/// Bytes fetched from the end of the file in one request, hoping to get the whole footer.
pub const FOOTER_PREFETCH: u64 = 64 * 1024;
/// Column chunks closer than this are fetched in one request.
const COALESCE_GAP: u64 = 64 * 1024;

fn corrupt(file: &str, e: impl std::fmt::Display) -> Error {
    Error::corrupt(file, format!("invalid Parquet file: {e}"))
}

/// Refuses a file with a column chunk compressed by a codec this build does not decode, naming
/// the file, the column and the codec. BROTLI is decoded only with the `brotli` feature: the
/// browser app leaves it out of its first load (parquet links brotli's encoder with its decoder).
fn check_codecs(file: &str, metadata: &ParquetMetaData) -> Result<()> {
    for group in metadata.row_groups() {
        for column in group.columns() {
            let decoded = match column.compression() {
                Compression::UNCOMPRESSED
                | Compression::SNAPPY
                | Compression::GZIP(_)
                | Compression::LZ4
                | Compression::LZ4_RAW
                | Compression::ZSTD(_) => true,
                Compression::BROTLI(_) => cfg!(feature = "brotli"),
                Compression::LZO => false,
            };
            if !decoded {
                let (codec, why) = match column.compression() {
                    Compression::BROTLI(_) => (
                        "BROTLI",
                        "this build leaves the BROTLI decoder out (the browser app does, to keep \
                         its first load small); the lakescope CLI reads it",
                    ),
                    _ => ("LZO", "no Parquet reader of lakescope decodes it"),
                };
                return Err(Error::unsupported(
                    file,
                    format!(
                        "Parquet column '{}' is compressed with {codec}: {why}",
                        column.column_path().string()
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// A whole Parquet file's reader builder, its codecs checked.
fn builder_of(file: &str, bytes: Bytes) -> Result<ParquetRecordBatchReaderBuilder<Bytes>> {
    let builder = ParquetRecordBatchReaderBuilder::try_new(bytes).map_err(|e| corrupt(file, e))?;
    check_codecs(file, builder.metadata())?;
    Ok(builder)
}

/// Root column indices to decode, and the file column name → wanted name renames (only
/// differing when a column was matched by Parquet field id).
fn projection(schema: &Schema, wanted: &[Wanted]) -> (Vec<usize>, HashMap<String, String>) {
    let ids: HashMap<i32, usize> = schema
        .fields()
        .iter()
        .enumerate()
        .filter_map(|(i, f)| {
            let id = f.metadata().get(PARQUET_FIELD_ID_META_KEY)?.parse().ok()?;
            Some((id, i))
        })
        .collect();
    let mut roots = Vec::new();
    let mut renames = HashMap::new();
    for w in wanted {
        let by_id = if ids.is_empty() {
            None
        } else {
            w.id.and_then(|id| ids.get(&id).copied())
        };
        let index = by_id.or_else(|| schema.fields().iter().position(|f| f.name() == &w.name));
        if let Some(i) = index {
            if !roots.contains(&i) {
                roots.push(i);
            }
            renames.insert(schema.field(i).name().clone(), w.name.clone());
        }
    }
    roots.sort_unstable();
    (roots, renames)
}

fn rename(
    file: &str,
    batch: RecordBatch,
    renames: &HashMap<String, String>,
) -> Result<RecordBatch> {
    if batch
        .schema()
        .fields()
        .iter()
        .all(|f| renames.get(f.name()).is_none_or(|n| n == f.name()))
    {
        return Ok(batch);
    }
    let schema = batch.schema();
    let fields: Vec<_> = schema
        .fields()
        .iter()
        .map(|f| match renames.get(f.name()) {
            Some(n) => f.as_ref().clone().with_name(n),
            None => f.as_ref().clone(),
        })
        .collect();
    RecordBatch::try_new(Arc::new(Schema::new(fields)), batch.columns().to_vec())
        .map_err(|e| corrupt(file, e))
}

fn decode_with<T: ChunkReader + 'static>(
    file: &str,
    builder: ParquetRecordBatchReaderBuilder<T>,
    wanted: &[Wanted],
) -> Result<Vec<RecordBatch>> {
    batches_with(file, builder, wanted, None, None, BATCH_SIZE)?.collect()
}

/// The decoded batches of a Parquet file (or of some of its row groups), one at a time, with
/// the wanted column names.
pub(crate) struct ParquetBatches {
    file: String,
    /// A batch decoded before `reader`'s (see [`batches_from_first_rows`]).
    first: Option<RecordBatch>,
    reader: ParquetRecordBatchReader,
    renames: HashMap<String, String>,
}

impl Iterator for ParquetBatches {
    type Item = Result<RecordBatch>;

    fn next(&mut self) -> Option<Self::Item> {
        if let Some(first) = self.first.take() {
            return Some(Ok(first));
        }
        let batch = self.reader.next()?;
        Some(
            batch
                .map_err(|e| corrupt(&self.file, e))
                .and_then(|b| rename(&self.file, b, &self.renames)),
        )
    }
}

fn batches_with<T: ChunkReader + 'static>(
    file: &str,
    builder: ParquetRecordBatchReaderBuilder<T>,
    wanted: &[Wanted],
    row_groups: Option<Vec<usize>>,
    selection: Option<RowSelection>,
    batch_size: usize,
) -> Result<ParquetBatches> {
    let (roots, renames) = projection(builder.schema(), wanted);
    let mask = ProjectionMask::roots(builder.parquet_schema(), roots);
    let builder = match row_groups {
        Some(groups) => builder.with_row_groups(groups),
        None => builder,
    };
    // Skipped rows' pages are passed over by the offset index, never read.
    let builder = match selection {
        Some(selection) => builder
            .with_row_selection(selection)
            .with_row_selection_policy(RowSelectionPolicy::Selectors),
        None => builder,
    };
    let reader = builder
        .with_projection(mask)
        .with_batch_size(batch_size)
        .build()
        .map_err(|e| corrupt(file, e))?;
    Ok(ParquetBatches {
        file: file.to_string(),
        first: None,
        reader,
        renames,
    })
}

/// Decodes the wanted columns of a whole Parquet file, `batch_size` rows at a time.
pub(crate) fn batches(
    file: &str,
    bytes: Bytes,
    wanted: &[Wanted],
    batch_size: usize,
) -> Result<ParquetBatches> {
    batches_with(
        file,
        builder_of(file, bytes)?,
        wanted,
        None,
        None,
        batch_size,
    )
}

/// Decodes the wanted columns of a whole Parquet file: its first `first_rows` rows as one batch,
/// decoded at once, then [`BATCH_SIZE`] rows at a time. For a merge's first rows: each sorted
/// run decodes only what the first merged batch may need, as soon as its file arrived (the pages
/// those rows are in are decompressed again for the second batch).
pub(crate) fn batches_from_first_rows(
    file: &str,
    bytes: Bytes,
    wanted: &[Wanted],
    first_rows: usize,
) -> Result<ParquetBatches> {
    let meta = ArrowReaderMetadata::load(&bytes, ArrowReaderOptions::new())
        .map_err(|e| corrupt(file, e))?;
    check_codecs(file, meta.metadata())?;
    // The rows the reader goes through: those of the row groups (a file's own total could differ).
    let rows: usize = meta
        .metadata()
        .row_groups()
        .iter()
        .map(|g| usize::try_from(g.num_rows()).unwrap_or(0))
        .sum();
    let first_rows = first_rows.max(1);
    let in_first = first_rows.min(rows);
    let reader = |selection: Vec<RowSelector>, batch_size: usize| {
        let builder =
            ParquetRecordBatchReaderBuilder::new_with_metadata(bytes.clone(), meta.clone());
        batches_with(
            file,
            builder,
            wanted,
            None,
            Some(selection.into()),
            batch_size,
        )
    };
    // Only its batch is taken from the first reader: asked again, it would pass over (decode) the
    // rest of the file to end its row selection.
    let first = reader(
        vec![
            RowSelector::select(in_first),
            RowSelector::skip(rows - in_first),
        ],
        first_rows,
    )?
    .next()
    .transpose()?;
    let rest = reader(
        vec![
            RowSelector::skip(in_first),
            RowSelector::select(rows - in_first),
        ],
        BATCH_SIZE,
    )?;
    Ok(ParquetBatches { first, ..rest })
}

/// Decodes the wanted columns of a whole Parquet file (columns keep their wanted names).
pub(crate) fn decode(file: &str, bytes: Bytes, wanted: &[Wanted]) -> Result<Vec<RecordBatch>> {
    decode_with(file, builder_of(file, bytes)?, wanted)
}

/// Reads a Parquet data file through `store` with ranged requests: the footer (one request of
/// the last [`FOOTER_PREFETCH`] bytes, two if the footer is larger), then only the column chunks
/// the read schema needs. `size` avoids a `head` request when the manifest already gave it.
/// Returns the same batches as [`read_file`](super::read_file).
pub async fn read_parquet_async(
    store: &dyn ObjectStore,
    path: &str,
    size: Option<u64>,
    file_fields: &[DataField],
    read_fields: &[DataField],
    kind: FileKind,
) -> Result<Vec<RecordBatch>> {
    read_parquet_ranged(
        store,
        path,
        size,
        file_fields,
        read_fields,
        kind,
        FOOTER_PREFETCH,
    )
    .await
}

/// [`read_parquet_async`] with a chosen footer prefetch size.
pub async fn read_parquet_ranged(
    store: &dyn ObjectStore,
    path: &str,
    size: Option<u64>,
    file_fields: &[DataField],
    read_fields: &[DataField],
    kind: FileKind,
    footer_prefetch: u64,
) -> Result<Vec<RecordBatch>> {
    ParquetFooter::fetch_with(store, path, size, footer_prefetch)
        .await?
        .read(store, file_fields, read_fields, kind)
        .await
}

/// A Parquet file's footer, fetched with ranged requests (the whole file when it is no larger
/// than the prefetch): its schema tells a reader what the file holds (field ids, names) before
/// [`ParquetFooter::read`] fetches only the column chunks the read needs.
pub struct ParquetFooter {
    path: String,
    size: u64,
    footer: Footer,
}

impl ParquetFooter {
    /// The footer of `path` (one request of the last [`FOOTER_PREFETCH`] bytes, two if the
    /// footer is larger); `size` avoids a `head` request when a manifest already gave it.
    pub async fn fetch(store: &dyn ObjectStore, path: &str, size: Option<u64>) -> Result<Self> {
        Self::fetch_with(store, path, size, FOOTER_PREFETCH).await
    }

    async fn fetch_with(
        store: &dyn ObjectStore,
        path: &str,
        size: Option<u64>,
        footer_prefetch: u64,
    ) -> Result<Self> {
        let (size, footer) = fetch_footer(store, path, size, footer_prefetch).await?;
        Ok(Self {
            path: path.to_string(),
            size,
            footer,
        })
    }

    /// The file's Arrow schema (Parquet field ids in each field's metadata).
    pub fn arrow_schema(&self) -> Result<SchemaRef> {
        match &self.footer {
            Footer::Whole(bytes) => Ok(builder_of(&self.path, bytes.clone())?.schema().clone()),
            Footer::Metadata { meta, .. } => Ok(meta.schema().clone()),
        }
    }

    /// Reads the file's rows onto `read_fields` (its columns named by `file_fields`), fetching
    /// only the column chunks they need; the same batches as [`read_file`](super::read_file).
    pub async fn read(
        self,
        store: &dyn ObjectStore,
        file_fields: &[DataField],
        read_fields: &[DataField],
        kind: FileKind,
    ) -> Result<Vec<RecordBatch>> {
        let (path, size) = (self.path.as_str(), self.size);
        let plan = evolution::plan(file_fields, read_fields);
        let wanted = wanted_columns(&plan, kind);
        let arrow_meta = match self.footer {
            Footer::Whole(bytes) => {
                // The prefetch got the whole file.
                let decoded = decode(path, bytes, &wanted)?;
                return assemble(path, &plan, kind, decoded);
            }
            Footer::Metadata { meta, .. } => meta,
        };
        let (roots, _) = projection(arrow_meta.schema(), &wanted);
        let mask = ProjectionMask::roots(arrow_meta.parquet_schema(), roots);
        let ranges = chunk_ranges(
            path,
            arrow_meta.metadata(),
            arrow_meta.parquet_schema(),
            &mask,
            size,
            None,
        )?;
        let chunks = fetch_ranges(store, path, ranges).await?;
        let reader = SparseFile { len: size, chunks };
        let builder = ParquetRecordBatchReaderBuilder::new_with_metadata(reader, arrow_meta);
        let decoded = decode_with(path, builder, &wanted)?;
        assemble(path, &plan, kind, decoded)
    }
}

/// What the footer request gave.
enum Footer {
    /// The whole file (it was no larger than the prefetch).
    Whole(Bytes),
    /// The file's metadata, and the end of the file fetched with it (its offset and bytes).
    Metadata {
        meta: ArrowReaderMetadata,
        tail: (u64, Bytes),
    },
}

/// The file size (from `size` or a `head` request) and its footer: one request of the last
/// `footer_prefetch` bytes, two if the footer is larger.
async fn fetch_footer(
    store: &dyn ObjectStore,
    path: &str,
    size: Option<u64>,
    footer_prefetch: u64,
) -> Result<(u64, Footer)> {
    let size = match size {
        Some(s) => s,
        None => store.head(path).await?.size,
    };
    if size < 12 {
        return Err(corrupt(path, format!("{size} bytes is too small")));
    }
    let tail_len = footer_prefetch.clamp(8, size);
    let tail = store.get_range(path, size - tail_len..size).await?;
    if tail.len() as u64 != tail_len {
        return Err(corrupt(path, "short read of the footer"));
    }
    if tail_len == size {
        return Ok((size, Footer::Whole(tail)));
    }
    let end = tail.len();
    if &tail[end - 4..] != b"PAR1" {
        return Err(corrupt(path, "no PAR1 magic at the end"));
    }
    let mut len_bytes = [0u8; 4];
    len_bytes.copy_from_slice(&tail[end - 8..end - 4]);
    let meta_len = u64::from(u32::from_le_bytes(len_bytes));
    if meta_len + 12 > size {
        return Err(corrupt(
            path,
            format!("footer of {meta_len} bytes in a {size}-byte file"),
        ));
    }
    let meta_bytes = if meta_len + 8 <= tail_len {
        let start = (tail_len - 8 - meta_len) as usize;
        tail.slice(start..end - 8)
    } else {
        store.get_range(path, size - 8 - meta_len..size - 8).await?
    };
    let metadata =
        ParquetMetaDataReader::decode_metadata(&meta_bytes).map_err(|e| corrupt(path, e))?;
    check_codecs(path, &metadata)?;
    let arrow_meta = ArrowReaderMetadata::try_new(Arc::new(metadata), ArrowReaderOptions::new())
        .map_err(|e| corrupt(path, e))?;
    let tail = (size - tail_len, tail);
    Ok((
        size,
        Footer::Metadata {
            meta: arrow_meta,
            tail,
        },
    ))
}

/// Reads rows `rows` (positions from the file's first row) of a Parquet file through `store` with
/// ranged requests: the footer (the last `footer_prefetch` bytes), then only the wanted
/// columns' pages that hold those rows, with their dictionary pages (through the offset index; a
/// row group without one: its wanted column chunks), all at once; decoded [`BATCH_SIZE`] rows at
/// a time. A range past the file's rows is an error naming the file.
pub(crate) async fn batches_of_rows(
    store: &dyn ObjectStore,
    path: &str,
    size: Option<u64>,
    wanted: &[Wanted],
    rows: Range<u64>,
    footer_prefetch: u64,
) -> Result<ParquetBatches> {
    let (size, footer) = fetch_footer(store, path, size, footer_prefetch).await?;
    let (meta, tail) = match footer {
        Footer::Whole(bytes) => {
            let meta = ArrowReaderMetadata::load(&bytes, ArrowReaderOptions::new())
                .map_err(|e| corrupt(path, e))?;
            check_codecs(path, meta.metadata())?;
            let held = groups_of_rows(path, meta.metadata(), &rows)?;
            let builder = ParquetRecordBatchReaderBuilder::new_with_metadata(bytes, meta);
            return batches_with(
                path,
                builder,
                wanted,
                Some(held.indices()),
                Some(held.selection),
                BATCH_SIZE,
            );
        }
        Footer::Metadata { meta, tail } => (meta, tail),
    };
    let meta =
        match parquet_pages::load_offset_index(store, path, size, meta.metadata(), &tail).await? {
            Some(with_index) => ArrowReaderMetadata::try_new(with_index, ArrowReaderOptions::new())
                .map_err(|e| corrupt(path, e))?,
            None => meta,
        };
    let (roots, _) = projection(meta.schema(), wanted);
    let mask = ProjectionMask::roots(meta.parquet_schema(), roots);
    let held = groups_of_rows(path, meta.metadata(), &rows)?;
    let mut ranges = Vec::new();
    for (group, local) in &held.groups {
        let md = meta.metadata();
        match parquet_pages::window_of_rows(path, md, &mask, *group, local.clone())? {
            Some(paged) => {
                ranges.extend(paged.dictionaries);
                ranges.extend(paged.windows.into_iter().flat_map(|w| w.ranges));
            }
            None => ranges.extend(chunk_ranges(
                path,
                md,
                meta.parquet_schema(),
                &mask,
                size,
                Some(*group),
            )?),
        }
    }
    let chunks = fetch_ranges(store, path, coalesce(ranges, 0)).await?;
    let reader = SparseFile { len: size, chunks };
    let builder = ParquetRecordBatchReaderBuilder::new_with_metadata(reader, meta);
    batches_with(
        path,
        builder,
        wanted,
        Some(held.indices()),
        Some(held.selection),
        BATCH_SIZE,
    )
}

/// The row groups holding some rows of a file, and the selection of exactly those rows.
struct RowsInGroups {
    /// Each row group holding some of the rows, with those rows (counted from the group's first).
    groups: Vec<(usize, Range<usize>)>,
    /// The rows within those row groups.
    selection: RowSelection,
}

impl RowsInGroups {
    fn indices(&self) -> Vec<usize> {
        self.groups.iter().map(|(group, _)| *group).collect()
    }
}

/// The row groups holding rows `rows` of a file; an error past the file's rows.
fn groups_of_rows(
    path: &str,
    metadata: &ParquetMetaData,
    rows: &Range<u64>,
) -> Result<RowsInGroups> {
    let count = |n: u64| usize::try_from(n).map_err(|e| corrupt(path, e));
    let mut groups = Vec::new();
    let mut selectors = Vec::new();
    let mut first = 0u64;
    for (group, row_group) in metadata.row_groups().iter().enumerate() {
        let n = u64::try_from(row_group.num_rows()).map_err(|e| corrupt(path, e))?;
        let (from, to) = (rows.start.max(first), rows.end.min(first + n));
        if from < to {
            let local = count(from - first)?..count(to - first)?;
            selectors.extend([
                RowSelector::skip(local.start),
                RowSelector::select(local.len()),
                RowSelector::skip(count(n)? - local.end),
            ]);
            groups.push((group, local));
        }
        first += n;
    }
    if rows.start > rows.end || rows.end > first {
        return Err(corrupt(
            path,
            format!(
                "rows {}..{} asked of a file of {first} rows",
                rows.start, rows.end
            ),
        ));
    }
    selectors.retain(|s| s.row_count > 0);
    Ok(RowsInGroups {
        groups,
        selection: selectors.into(),
    })
}

/// A Parquet file read a piece at a time with ranged requests: the footer first, then per row
/// group only the wanted columns' chunks, or, for a row group whose wanted chunks are larger
/// than `window_bytes`, a few pages at a time (found through the offset index, when the file
/// has one). Holds one piece's compressed bytes at a time (while its batches are decoded).
pub(crate) struct RowGroupFile {
    path: String,
    size: u64,
    wanted: Vec<Wanted>,
    state: RowGroupState,
    /// The first piece's limits, until it is read.
    first_piece: Option<FirstPiece>,
}

/// A small first piece of a file, for a viewer that shows the first rows as soon as they come.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FirstPiece {
    /// At most this many bytes of pages (when the file has an offset index).
    pub bytes: u64,
    /// Decoded this many rows per batch (later pieces: [`BATCH_SIZE`]).
    pub rows: usize,
}

enum RowGroupState {
    /// The file was small enough to come whole with the footer request.
    Whole(Option<Bytes>),
    Ranged(Box<Ranged>),
}

/// Reading position in a file fetched with ranged requests.
struct Ranged {
    meta: ArrowReaderMetadata,
    mask: ProjectionMask,
    /// The end of the file fetched with the footer (offset, bytes): may hold the offset index.
    tail: (u64, Bytes),
    window_bytes: u64,
    index: OffsetIndex,
    /// The next row group to start.
    next: usize,
    /// The pages still to read of the row group being read in windows.
    windows: VecDeque<Window>,
    /// That row group's dictionary pages (offset, bytes), fetched with its first window.
    dictionaries: Vec<(u64, Bytes)>,
    /// Where they are, until that first window is fetched.
    dictionary_ranges: Vec<Range<u64>>,
}

/// Whether the offset index is in the metadata.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum OffsetIndex {
    /// Not needed yet: every row group so far fitted `window_bytes`.
    NotLoaded,
    Loaded,
    /// The file has none: large row groups are read whole.
    Absent,
}

impl RowGroupFile {
    /// Fetches the footer (see [`read_parquet_ranged`]). Row groups whose wanted chunks exceed
    /// `window_bytes` are read in windows of pages; with `first_piece`, the first piece is at
    /// most its bytes of pages (when the file has an offset index), decoded its rows at a time,
    /// and the rest of its row group comes in windows of `window_bytes`.
    pub(crate) async fn open(
        store: &dyn ObjectStore,
        path: &str,
        size: Option<u64>,
        wanted: Vec<Wanted>,
        footer_prefetch: u64,
        window_bytes: u64,
        first_piece: Option<FirstPiece>,
    ) -> Result<Self> {
        let (size, footer) = fetch_footer(store, path, size, footer_prefetch).await?;
        let state = match footer {
            Footer::Whole(bytes) => RowGroupState::Whole(Some(bytes)),
            Footer::Metadata { meta, tail } => {
                let (roots, _) = projection(meta.schema(), &wanted);
                let mask = ProjectionMask::roots(meta.parquet_schema(), roots);
                RowGroupState::Ranged(Box::new(Ranged {
                    meta,
                    mask,
                    tail,
                    window_bytes,
                    index: OffsetIndex::NotLoaded,
                    next: 0,
                    windows: VecDeque::new(),
                    dictionaries: Vec::new(),
                    dictionary_ranges: Vec::new(),
                }))
            }
        };
        Ok(Self {
            path: path.to_string(),
            size,
            wanted,
            state,
            first_piece,
        })
    }

    /// Fetches the next piece (a row group, or a window of one's pages); its batches, or
    /// `None` after the last row group.
    pub(crate) async fn next_piece(
        &mut self,
        store: &dyn ObjectStore,
    ) -> Result<Option<ParquetBatches>> {
        let path = self.path.as_str();
        let first_piece = self.first_piece.take();
        let batch_size = first_piece.map_or(BATCH_SIZE, |f| f.rows);
        let Ranged {
            meta,
            mask,
            tail,
            window_bytes,
            index,
            next,
            windows,
            dictionaries,
            dictionary_ranges,
        } = match &mut self.state {
            RowGroupState::Whole(bytes) => {
                return match bytes.take() {
                    Some(bytes) => batches(path, bytes, &self.wanted, batch_size).map(Some),
                    None => Ok(None),
                }
            }
            RowGroupState::Ranged(ranged) => ranged.as_mut(),
        };
        if windows.is_empty() {
            let group = *next;
            if group >= meta.metadata().num_row_groups() {
                return Ok(None);
            }
            *next += 1;
            let ranges = chunk_ranges(
                path,
                meta.metadata(),
                meta.parquet_schema(),
                mask,
                self.size,
                Some(group),
            )?;
            let bytes: u64 = ranges.iter().map(|r| r.end - r.start).sum();
            let first = first_piece.map(|f| f.bytes).filter(|f| f < window_bytes);
            let limit = first.unwrap_or(*window_bytes);
            if bytes > limit {
                if *index == OffsetIndex::NotLoaded {
                    let loaded = parquet_pages::load_offset_index(
                        store,
                        path,
                        self.size,
                        meta.metadata(),
                        tail,
                    )
                    .await?;
                    *index = match loaded {
                        Some(with_index) => {
                            *meta =
                                ArrowReaderMetadata::try_new(with_index, ArrowReaderOptions::new())
                                    .map_err(|e| corrupt(path, e))?;
                            OffsetIndex::Loaded
                        }
                        None => OffsetIndex::Absent,
                    };
                }
                if *index == OffsetIndex::Loaded {
                    let md = meta.metadata();
                    let cut = parquet_pages::windows(path, md, mask, group, 0, limit)?;
                    if let Some(mut paged) = cut {
                        if first.is_some() && paged.windows.len() > 1 {
                            // Only the first window is small: the rest with the usual limit.
                            paged.windows.truncate(1);
                            let from = paged.windows[0].rows.end;
                            let rest =
                                parquet_pages::windows(path, md, mask, group, from, *window_bytes)?;
                            paged
                                .windows
                                .extend(rest.into_iter().flat_map(|r| r.windows));
                        }
                        *dictionaries = Vec::new();
                        *dictionary_ranges = paged.dictionaries;
                        *windows = paged.windows.into();
                    }
                }
            }
            if windows.is_empty() {
                let chunks = fetch_ranges(store, path, ranges).await?;
                let reader = SparseFile {
                    len: self.size,
                    chunks,
                };
                let builder =
                    ParquetRecordBatchReaderBuilder::new_with_metadata(reader, meta.clone());
                return batches_with(
                    path,
                    builder,
                    &self.wanted,
                    Some(vec![group]),
                    None,
                    batch_size,
                )
                .map(Some);
            }
        }
        let Some(window) = windows.pop_front() else {
            return Ok(None);
        };
        let total = usize::try_from(meta.metadata().row_group(window.group).num_rows())
            .map_err(|e| corrupt(path, e))?;
        let selection = window.selection(total);
        // Only touching ranges are merged: a gap may be most of the row group. The row group's
        // dictionary pages come with its first window, in the same requests as the data pages
        // they touch (requests beyond the browser's few connections per host wait a round trip).
        let new_dictionaries = std::mem::take(dictionary_ranges);
        let mut ranges = window.ranges;
        ranges.extend(new_dictionaries.iter().cloned());
        let mut chunks = fetch_ranges(store, path, coalesce(ranges, 0)).await?;
        chunks.extend(dictionaries.iter().cloned());
        let reader = SparseFile {
            len: self.size,
            chunks,
        };
        for range in new_dictionaries {
            if let Ok(bytes) = reader.find(range.start, range.end - range.start) {
                dictionaries.push((range.start, bytes));
            }
        }
        if windows.is_empty() {
            dictionaries.clear();
        }
        let builder = ParquetRecordBatchReaderBuilder::new_with_metadata(reader, meta.clone());
        batches_with(
            path,
            builder,
            &self.wanted,
            Some(vec![window.group]),
            Some(selection),
            batch_size,
        )
        .map(Some)
    }
}

/// Fetches `ranges` of the file concurrently, each with its offset.
async fn fetch_ranges(
    store: &dyn ObjectStore,
    path: &str,
    ranges: Vec<Range<u64>>,
) -> Result<Vec<(u64, Bytes)>> {
    let fetches = ranges.into_iter().map(|range| async move {
        let start = range.start;
        store.get_range(path, range).await.map(|b| (start, b))
    });
    Ok(futures::future::try_join_all(fetches).await?)
}

/// Byte ranges of the projected column chunks of every row group (or only one), coalesced.
fn chunk_ranges(
    file: &str,
    metadata: &ParquetMetaData,
    schema: &SchemaDescriptor,
    mask: &ProjectionMask,
    size: u64,
    only_row_group: Option<usize>,
) -> Result<Vec<Range<u64>>> {
    let mut ranges: Vec<Range<u64>> = Vec::new();
    let groups = metadata.row_groups().iter().enumerate();
    for (_, row_group) in groups.filter(|(i, _)| only_row_group.is_none_or(|g| g == *i)) {
        for (i, column) in row_group.columns().iter().enumerate() {
            if i >= schema.num_columns() || !mask.leaf_included(i) {
                continue;
            }
            let Range { start, end } =
                super::parquet_pages::chunk_bytes(column).map_err(|e| corrupt(file, e))?;
            if end > size {
                return Err(corrupt(
                    file,
                    format!("column chunk {start}..{end} past the end ({size})"),
                ));
            }
            ranges.push(start..end);
        }
    }
    Ok(coalesce(ranges, COALESCE_GAP))
}

/// `ranges` sorted, those at most `gap` bytes apart merged into one.
fn coalesce(mut ranges: Vec<Range<u64>>, gap: u64) -> Vec<Range<u64>> {
    ranges.sort_by_key(|r| r.start);
    let mut merged: Vec<Range<u64>> = Vec::with_capacity(ranges.len());
    for r in ranges {
        match merged.last_mut() {
            Some(last) if r.start <= last.end + gap => last.end = last.end.max(r.end),
            _ => merged.push(r),
        }
    }
    merged
}

/// A file of which only some byte ranges were fetched.
struct SparseFile {
    len: u64,
    chunks: Vec<(u64, Bytes)>,
}

impl SparseFile {
    fn find(&self, start: u64, len: u64) -> parquet::errors::Result<Bytes> {
        for (offset, bytes) in &self.chunks {
            let end = offset + bytes.len() as u64;
            if *offset <= start && start.saturating_add(len) <= end {
                let from = (start - offset) as usize;
                return Ok(bytes.slice(from..from + len as usize));
            }
        }
        Err(ParquetError::General(format!(
            "bytes {start}..{} were not fetched",
            start.saturating_add(len)
        )))
    }
}

impl Length for SparseFile {
    fn len(&self) -> u64 {
        self.len
    }
}

impl ChunkReader for SparseFile {
    type T = bytes::buf::Reader<Bytes>;

    fn get_read(&self, start: u64) -> parquet::errors::Result<Self::T> {
        for (offset, bytes) in &self.chunks {
            let end = offset + bytes.len() as u64;
            if *offset <= start && start < end {
                return Ok(bytes.slice((start - offset) as usize..).reader());
            }
        }
        Err(ParquetError::General(format!(
            "byte {start} was not fetched"
        )))
    }

    fn get_bytes(&self, start: u64, length: usize) -> parquet::errors::Result<Bytes> {
        self.find(start, length as u64)
    }
}
