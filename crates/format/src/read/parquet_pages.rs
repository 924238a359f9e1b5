//! Page windows: a Parquet row group cut into row ranges whose pages (found through the offset
//! index) fit a byte budget, so a row group larger than the memory budget is fetched and decoded
//! a few pages at a time.

use std::ops::Range;
use std::sync::Arc;

use bytes::Bytes;
use lakescope_storage::ObjectStore;
use parquet::arrow::arrow_reader::{RowSelection, RowSelector};
use parquet::arrow::ProjectionMask;
use parquet::file::metadata::{
    ColumnChunkMetaData, PageIndexPolicy, ParquetMetaData, ParquetMetaDataPushDecoder,
};
use parquet::file::page_index::offset_index::PageLocation;
use parquet::DecodeResult;

use crate::{Error, Result};

/// Rows `rows` of row group `group`, and the byte ranges holding their data pages of the
/// wanted columns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Window {
    pub group: usize,
    pub rows: Range<usize>,
    pub ranges: Vec<Range<u64>>,
}

impl Window {
    /// The selection of the window's rows within its row group of `total` rows.
    pub fn selection(&self, total: usize) -> RowSelection {
        let parts = [
            RowSelector::skip(self.rows.start),
            RowSelector::select(self.rows.len()),
            RowSelector::skip(total.saturating_sub(self.rows.end)),
        ];
        parts
            .into_iter()
            .filter(|s| s.row_count > 0)
            .collect::<Vec<_>>()
            .into()
    }
}

fn corrupt(file: &str, e: impl std::fmt::Display) -> Error {
    Error::corrupt(file, format!("invalid Parquet page index: {e}"))
}

/// `metadata` with the offset index of every column chunk loaded (`None` when the file has no
/// offset index). `tail` is the end of the file already fetched with the footer (its offset
/// and bytes): index bytes inside it are not requested again.
pub(crate) async fn load_offset_index(
    store: &dyn ObjectStore,
    path: &str,
    size: u64,
    metadata: &ParquetMetaData,
    tail: &(u64, Bytes),
) -> Result<Option<Arc<ParquetMetaData>>> {
    let has_index = metadata
        .row_groups()
        .iter()
        .flat_map(|g| g.columns())
        .any(|c| c.offset_index_offset().is_some());
    if !has_index {
        return Ok(None);
    }
    let mut decoder = ParquetMetaDataPushDecoder::try_new_with_metadata(size, metadata.clone())
        .map_err(|e| corrupt(path, e))?
        .with_column_index_policy(PageIndexPolicy::Skip)
        .with_offset_index_policy(PageIndexPolicy::Optional);
    loop {
        match decoder.try_decode().map_err(|e| corrupt(path, e))? {
            DecodeResult::Data(loaded) => {
                check_offset_index(path, &loaded)?;
                return Ok(Some(Arc::new(loaded)));
            }
            DecodeResult::Finished => return Err(corrupt(path, "decoder finished early")),
            DecodeResult::NeedsData(ranges) => {
                let fetches = ranges.iter().map(|r| fetch(store, path, r.clone(), tail));
                let buffers = futures::future::try_join_all(fetches).await?;
                decoder
                    .push_ranges(ranges, buffers)
                    .map_err(|e| corrupt(path, e))?;
            }
        }
    }
}

/// `range` of the file, from `tail` when it holds it.
async fn fetch(
    store: &dyn ObjectStore,
    path: &str,
    range: Range<u64>,
    tail: &(u64, Bytes),
) -> Result<Bytes> {
    let (tail_start, bytes) = tail;
    if range.start >= *tail_start && range.end <= tail_start + bytes.len() as u64 {
        let from = (range.start - tail_start) as usize;
        let to = (range.end - tail_start) as usize;
        return Ok(bytes.slice(from..to));
    }
    Ok(store.get_range(path, range).await?)
}

/// One data page: its bytes in the file and the first row (of its row group) it holds.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Page {
    bytes: Range<u64>,
    first_row: usize,
}

/// The bytes of column chunk `column` (from its dictionary page when it has one), or what is
/// wrong with its offset and size.
pub(crate) fn chunk_bytes(column: &ColumnChunkMetaData) -> std::result::Result<Range<u64>, String> {
    let start = column
        .dictionary_page_offset()
        .filter(|o| *o > 0)
        .unwrap_or_else(|| column.data_page_offset());
    let len = column.compressed_size();
    let (Ok(start), Ok(len)) = (u64::try_from(start), u64::try_from(len)) else {
        return Err(format!(
            "negative column chunk offset {start} or size {len}"
        ));
    };
    let end = start
        .checked_add(len)
        .ok_or_else(|| format!("column chunk {start}+{len} overflows"))?;
    Ok(start..end)
}

/// The data pages of column `index` of a row group of `rows` rows whose chunk is `chunk`, with
/// its offset index `locations` checked: every page non-empty, inside the chunk and after the
/// previous one; the first at row 0, each later one at a later row below `rows`.
fn checked_pages(
    path: &str,
    index: usize,
    chunk: &Range<u64>,
    locations: &[PageLocation],
    rows: usize,
) -> Result<Vec<Page>> {
    let mut pages: Vec<Page> = Vec::with_capacity(locations.len());
    for (i, p) in locations.iter().enumerate() {
        let bad = |what: String| corrupt(path, format!("column {index} page {i}: {what}"));
        let (Ok(start), Ok(len)) = (
            u64::try_from(p.offset),
            u64::try_from(p.compressed_page_size),
        ) else {
            return Err(bad(format!(
                "negative offset {} or size {}",
                p.offset, p.compressed_page_size
            )));
        };
        if len == 0 {
            return Err(bad(format!("empty page at offset {start}")));
        }
        let end = start
            .checked_add(len)
            .filter(|end| start >= chunk.start && *end <= chunk.end)
            .ok_or_else(|| {
                bad(format!(
                    "bytes {start}+{len} lie outside its column chunk {}..{}",
                    chunk.start, chunk.end
                ))
            })?;
        let first_row = usize::try_from(p.first_row_index)
            .ok()
            .filter(|r| *r < rows)
            .ok_or_else(|| {
                bad(format!(
                    "first row {} outside the row group's {rows} rows",
                    p.first_row_index
                ))
            })?;
        match pages.last() {
            None if first_row != 0 => {
                return Err(bad(format!(
                    "the first page starts at row {first_row}, not 0"
                )))
            }
            Some(last) if start < last.bytes.end => {
                return Err(bad(format!(
                    "offset {start} is before the end {} of page {}",
                    last.bytes.end,
                    i - 1
                )))
            }
            Some(last) if first_row <= last.first_row => {
                return Err(bad(format!(
                    "first row {first_row} is not after page {}'s first row {}",
                    i - 1,
                    last.first_row
                )))
            }
            _ => {}
        }
        pages.push(Page {
            bytes: start..end,
            first_row,
        });
    }
    Ok(pages)
}

/// Checks the offset index of every column chunk of `metadata` ([`checked_pages`]): the
/// Parquet reader follows its page locations for every read once it is loaded.
fn check_offset_index(path: &str, metadata: &ParquetMetaData) -> Result<()> {
    let Some(index) = metadata.offset_index() else {
        return Ok(());
    };
    for (group, columns) in metadata.row_groups().iter().zip(index) {
        let rows = usize::try_from(group.num_rows()).map_err(|e| corrupt(path, e))?;
        for (i, (column, pages)) in group.columns().iter().zip(columns).enumerate() {
            checked_pages(
                path,
                i,
                &chunk_bytes(column).map_err(|e| corrupt(path, format!("column {i}: {e}")))?,
                &pages.page_locations,
                rows,
            )?;
        }
    }
    Ok(())
}

/// One wanted column chunk's data pages, checked ([`checked_pages`]): at least one.
struct ColumnPages {
    pages: Vec<Page>,
}

impl ColumnPages {
    /// Indices of the pages holding rows `rows` (rows of a page run to the next page's first).
    fn pages_for(&self, rows: &Range<usize>, total: usize) -> Range<usize> {
        let first_row = |i: usize| self.pages.get(i).map_or(total, |p| p.first_row);
        let start = (0..self.pages.len())
            .find(|&i| first_row(i + 1) > rows.start)
            .unwrap_or(self.pages.len());
        let end = (start..self.pages.len())
            .find(|&i| first_row(i) >= rows.end)
            .unwrap_or(self.pages.len());
        start..end
    }

    /// The bytes of the pages holding rows `rows`.
    fn range(&self, rows: &Range<usize>, total: usize) -> Option<Range<u64>> {
        let pages = self.pages.get(self.pages_for(rows, total))?;
        Some(pages.first()?.bytes.start..pages.last()?.bytes.end)
    }
}

/// A row group cut into windows of pages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PagedRowGroup {
    /// The wanted columns' dictionary pages: fetched once, used by every window.
    pub dictionaries: Vec<Range<u64>>,
    pub windows: Vec<Window>,
}

/// The wanted columns' pages of one row group.
struct WantedPages {
    /// Each wanted column's data pages, checked ([`checked_pages`]).
    columns: Vec<ColumnPages>,
    /// The bytes of their dictionary pages.
    dictionaries: Vec<Range<u64>>,
    /// The row group's rows.
    total: usize,
}

/// The wanted columns' pages of row group `group`; `None` when the metadata has no offset index
/// for it.
fn wanted_pages(
    path: &str,
    metadata: &ParquetMetaData,
    mask: &ProjectionMask,
    group: usize,
) -> Result<Option<WantedPages>> {
    let Some(index) = metadata.offset_index().and_then(|i| i.get(group)) else {
        return Ok(None);
    };
    let row_group = metadata.row_group(group);
    let total = usize::try_from(row_group.num_rows()).map_err(|e| corrupt(path, e))?;
    let mut columns = Vec::new();
    let mut dictionaries = Vec::new();
    for (i, column) in row_group.columns().iter().enumerate() {
        if !mask.leaf_included(i) {
            continue;
        }
        let Some(locations) = index.get(i).map(|c| c.page_locations.as_slice()) else {
            return Ok(None);
        };
        let chunk = chunk_bytes(column).map_err(|e| corrupt(path, format!("column {i}: {e}")))?;
        let pages = checked_pages(path, i, &chunk, locations, total)?;
        let Some(first) = pages.first() else {
            return Err(corrupt(
                path,
                format!("column {i}: no pages in its offset index"),
            ));
        };
        if first.bytes.start > chunk.start {
            dictionaries.push(chunk.start..first.bytes.start);
        }
        columns.push(ColumnPages { pages });
    }
    Ok(Some(WantedPages {
        columns,
        dictionaries,
        total,
    }))
}

/// Rows `rows` of row group `group` as one window: the bytes of the wanted columns' pages that
/// hold them, with the dictionary pages. `None` when the metadata has no offset index for it.
/// `metadata` must hold the offset index ([`load_offset_index`]).
pub(crate) fn window_of_rows(
    path: &str,
    metadata: &ParquetMetaData,
    mask: &ProjectionMask,
    group: usize,
    rows: Range<usize>,
) -> Result<Option<PagedRowGroup>> {
    let Some(WantedPages {
        columns,
        dictionaries,
        total,
    }) = wanted_pages(path, metadata, mask, group)?
    else {
        return Ok(None);
    };
    let mut ranges: Vec<Range<u64>> = columns
        .iter()
        .filter_map(|c| c.range(&rows, total))
        .collect();
    ranges.sort_by_key(|r| r.start);
    Ok(Some(PagedRowGroup {
        dictionaries,
        windows: vec![Window {
            group,
            rows,
            ranges,
        }],
    }))
}

/// Cuts the rows of row group `group` from `from_row` on into windows of whole pages whose
/// wanted columns' bytes stay within `window_bytes` where the pages allow (a window holds at
/// least one page of each column; the dictionary pages come on top). `None` when the metadata
/// has no offset index for it, an error when the wanted columns' index is malformed
/// ([`checked_pages`]). `metadata` must hold the offset index ([`load_offset_index`]).
pub(crate) fn windows(
    path: &str,
    metadata: &ParquetMetaData,
    mask: &ProjectionMask,
    group: usize,
    from_row: usize,
    window_bytes: u64,
) -> Result<Option<PagedRowGroup>> {
    let Some(WantedPages {
        columns,
        dictionaries,
        total,
    }) = wanted_pages(path, metadata, mask, group)?
    else {
        return Ok(None);
    };
    // Rows where some column starts a page: the only places a window can end cheaply.
    let mut boundaries: Vec<usize> = columns
        .iter()
        .flat_map(|c| c.pages.iter())
        .map(|p| p.first_row)
        .filter(|&r| r > from_row)
        .chain(std::iter::once(total))
        .collect();
    boundaries.sort_unstable();
    boundaries.dedup();
    let bytes = |rows: &Range<usize>| -> u64 {
        columns
            .iter()
            .filter_map(|c| c.range(rows, total))
            .map(|r| r.end - r.start)
            .sum()
    };
    let mut out = Vec::new();
    let mut start = from_row;
    let mut next = boundaries.iter().peekable();
    while start < total {
        let Some(&first_end) = next.next() else { break };
        let mut end = first_end;
        while let Some(&&candidate) = next.peek() {
            if bytes(&(start..candidate)) > window_bytes {
                break;
            }
            end = candidate;
            next.next();
        }
        let rows = start..end;
        let mut ranges: Vec<Range<u64>> = columns
            .iter()
            .filter_map(|c| c.range(&rows, total))
            .collect();
        ranges.sort_by_key(|r| r.start);
        out.push(Window {
            group,
            rows,
            ranges,
        });
        start = end;
    }
    Ok(Some(PagedRowGroup {
        dictionaries,
        windows: out,
    }))
}

#[cfg(test)]
mod tests {
    use std::rc::Rc;
    use std::sync::Arc;

    use arrow_array::{ArrayRef, Int64Array, RecordBatch, StringArray};
    use arrow_schema::{DataType as ArrowType, Field, Schema};
    use arrow_select::concat::concat_batches;
    use bytes::Bytes;
    use lakescope_storage::{IoMeter, MemoryStore, MeteredStore, ObjectStore};
    use parquet::arrow::{ArrowWriter, ProjectionMask};
    use parquet::file::metadata::{PageIndexPolicy, ParquetMetaData, ParquetMetaDataReader};
    use parquet::file::page_index::offset_index::PageLocation;
    use parquet::file::properties::WriterProperties;

    use crate::read::parquet::{
        batches_from_first_rows, batches_of_rows, decode, FirstPiece, RowGroupFile, FOOTER_PREFETCH,
    };
    use crate::read::{Wanted, BATCH_SIZE};
    use crate::spec::types::MAX_LENGTH;
    use crate::spec::{DataType, TypeKind};

    const ROWS: usize = 12_000;
    const GROUP_ROWS: usize = 5_000;

    /// A file of 3 row groups (5,000, 5,000, 2,000 rows) of ~100-row pages: a dictionary-encoded
    /// string column with nulls and a plain integer column.
    fn file(offset_index: bool) -> (Bytes, Schema) {
        let schema = Schema::new(vec![
            Field::new("id", ArrowType::Int64, false),
            Field::new("name", ArrowType::Utf8, true),
        ]);
        let ids: ArrayRef = Arc::new(Int64Array::from_iter_values(
            (0..ROWS as i64).map(|i| i * 7),
        ));
        let names: ArrayRef = Arc::new(StringArray::from_iter(
            (0..ROWS).map(|i| (i % 11 != 0).then(|| format!("name-{}", i % 37))),
        ));
        let batch = RecordBatch::try_new(Arc::new(schema.clone()), vec![ids, names]).unwrap();
        let props = WriterProperties::builder()
            .set_max_row_group_row_count(Some(GROUP_ROWS))
            .set_data_page_row_count_limit(100)
            .set_write_batch_size(100)
            .set_offset_index_disabled(!offset_index)
            .build();
        let mut writer = ArrowWriter::try_new(Vec::new(), batch.schema(), Some(props)).unwrap();
        writer.write(&batch).unwrap();
        (Bytes::from(writer.into_inner().unwrap()), schema)
    }

    fn wanted() -> Vec<Wanted> {
        [
            ("id", TypeKind::BigInt),
            ("name", TypeKind::VarChar(MAX_LENGTH)),
        ]
        .into_iter()
        .map(|(name, kind)| Wanted {
            name: name.into(),
            id: None,
            data_type: DataType::nullable(kind),
        })
        .collect()
    }

    /// Reads the file piece by piece with `window_bytes`: the rows, and the bytes fetched for
    /// each piece.
    async fn read_in_pieces(bytes: Bytes, window_bytes: u64) -> (Vec<RecordBatch>, Vec<u64>) {
        read_from_first_piece(bytes, window_bytes, None).await
    }

    /// [`read_in_pieces`] with a first piece of at most `first_window` bytes (100 rows a batch).
    async fn read_from_first_piece(
        bytes: Bytes,
        window_bytes: u64,
        first_window: Option<u64>,
    ) -> (Vec<RecordBatch>, Vec<u64>) {
        try_read_from_first_piece(bytes, window_bytes, first_window)
            .await
            .unwrap()
    }

    /// [`read_from_first_piece`], or the first error.
    async fn try_read_from_first_piece(
        bytes: Bytes,
        window_bytes: u64,
        first_window: Option<u64>,
    ) -> crate::Result<(Vec<RecordBatch>, Vec<u64>)> {
        let memory = MemoryStore::new();
        let size = bytes.len() as u64;
        memory.put("f.parquet", bytes).await?;
        let meter = Arc::new(IoMeter::default());
        let store = MeteredStore::new(Rc::new(memory) as Rc<dyn ObjectStore>, meter.clone());
        let mut file = RowGroupFile::open(
            &store,
            "f.parquet",
            Some(size),
            wanted(),
            FOOTER_PREFETCH,
            window_bytes,
            first_window.map(|bytes| FirstPiece { bytes, rows: 100 }),
        )
        .await?;
        let mut batches = Vec::new();
        let mut fetched = Vec::new();
        loop {
            let before = meter.read();
            let Some(piece) = file.next_piece(&store).await? else {
                break;
            };
            fetched.push(meter.read().since(&before).bytes_read);
            for batch in piece {
                batches.push(batch?);
            }
        }
        Ok((batches, fetched))
    }

    fn rows(schema: &Schema, batches: &[RecordBatch]) -> RecordBatch {
        concat_batches(&Arc::new(schema.clone()), batches).unwrap()
    }

    /// Rows `start..end` of the file through `batches_of_rows` (footer prefetch `prefetch`): the
    /// rows, the bytes fetched, or the first error.
    async fn read_rows(
        bytes: Bytes,
        range: std::ops::Range<u64>,
        prefetch: u64,
    ) -> crate::Result<(RecordBatch, u64)> {
        let memory = MemoryStore::new();
        let size = bytes.len() as u64;
        memory.put("f.parquet", bytes.clone()).await?;
        let meter = Arc::new(IoMeter::default());
        let store = MeteredStore::new(Rc::new(memory) as Rc<dyn ObjectStore>, meter.clone());
        let batches = batches_of_rows(&store, "f.parquet", Some(size), &wanted(), range, prefetch)
            .await?
            .collect::<crate::Result<Vec<_>>>()?;
        let (_, schema) = file(true);
        Ok((rows(&schema, &batches), meter.read().bytes_read))
    }

    #[tokio::test]
    async fn a_range_of_rows_reads_exactly_those_rows_and_only_their_pages() {
        for offset_index in [true, false] {
            let (bytes, schema) = file(offset_index);
            let whole = rows(
                &schema,
                &decode("f.parquet", bytes.clone(), &wanted()).unwrap(),
            );
            // within a group, across groups (5,000 and 10,000 end the first two), the last row
            for (start, end) in [
                (0, 12_000),
                (100, 4_900),
                (4_990, 5_010),
                (7_000, 12_000),
                (11_999, 12_000),
            ] {
                for prefetch in [FOOTER_PREFETCH, 1_024] {
                    let what = format!(
                        "rows {start}..{end}, offset index {offset_index}, prefetch {prefetch}"
                    );
                    let (got, _) = read_rows(bytes.clone(), start..end, prefetch)
                        .await
                        .unwrap();
                    let len = (end - start) as usize;
                    assert_eq!(got, whole.slice(start as usize, len), "{what}");
                }
            }
            if offset_index {
                // 20 rows: one row group's dictionary pages and a page of each column, against
                // every dictionary and page of the file for all its rows
                let (_, few) = read_rows(bytes.clone(), 100..120, 1_024).await.unwrap();
                let (_, all) = read_rows(bytes.clone(), 0..12_000, 1_024).await.unwrap();
                assert!(few * 2 < all, "20 rows fetched {few} bytes, all rows {all}");
            }
            let past = read_rows(bytes, 11_000..12_001, 1_024)
                .await
                .unwrap_err()
                .to_string();
            assert!(
                past.contains("f.parquet") && past.contains("rows 11000..12001"),
                "{past}"
            );
        }
    }

    #[test]
    fn a_whole_file_read_from_a_few_first_rows_gives_them_then_whole_batches() {
        let (bytes, schema) = file(false);
        let whole = rows(
            &schema,
            &decode("f.parquet", bytes.clone(), &wanted()).unwrap(),
        );
        let read = |first_rows| {
            batches_from_first_rows("f.parquet", bytes.clone(), &wanted(), first_rows)
                .unwrap()
                .collect::<crate::Result<Vec<_>>>()
                .unwrap()
        };
        let batches = read(100);
        let sizes: Vec<usize> = batches.iter().map(RecordBatch::num_rows).collect();
        assert_eq!(sizes, [100, BATCH_SIZE, ROWS - 100 - BATCH_SIZE]);
        assert_eq!(
            rows(&schema, &batches),
            whole,
            "the rows of the file, in order"
        );
        // Asked for more rows than the file has: all of them in one batch.
        let batches = read(ROWS + 1);
        assert_eq!(batches.len(), 1);
        assert_eq!(rows(&schema, &batches), whole);
    }

    #[test]
    fn a_truncated_file_read_from_its_first_rows_is_an_error_naming_it() {
        let (bytes, _) = file(false);
        let cut = bytes.slice(..bytes.len() - 100);
        let error = match batches_from_first_rows("f.parquet", cut, &wanted(), 100) {
            Ok(_) => panic!("a truncated file was read"),
            Err(e) => e.to_string(),
        };
        assert!(
            error.contains("f.parquet") && error.contains("invalid Parquet file"),
            "{error}"
        );
    }

    #[tokio::test(flavor = "current_thread")]
    async fn page_windows_give_the_rows_of_whole_row_groups_and_fetch_less_at_once() {
        let (bytes, schema) = file(true);
        let whole = rows(
            &schema,
            &decode("f.parquet", bytes.clone(), &wanted()).unwrap(),
        );
        assert_eq!(whole.num_rows(), ROWS);
        let (_, by_group) = read_in_pieces(bytes.clone(), u64::MAX).await;
        assert_eq!(by_group.len(), 3, "one piece per row group without a limit");
        let largest_group = by_group.iter().copied().max().unwrap();
        for window_bytes in [1, 2_000, 5_000] {
            let (batches, fetched) = read_in_pieces(bytes.clone(), window_bytes).await;
            assert_eq!(rows(&schema, &batches), whole, "window {window_bytes}");
            assert!(
                fetched.len() > 2 * 3,
                "window {window_bytes}: only {} pieces",
                fetched.len()
            );
            // A row group's first piece brings its dictionaries (`id`'s is most of its bytes
            // here), the others only their pages; nothing is fetched twice.
            let mut sorted = fetched.clone();
            sorted.sort_unstable();
            let median = sorted[sorted.len() / 2];
            // (A window holds at least one page of each column: ~1 KB here.)
            assert!(
                median <= window_bytes.max(largest_group / 20),
                "window {window_bytes}: half the pieces fetched over {median} bytes \
                 of a {largest_group}-byte row group"
            );
            let total: u64 = fetched.iter().sum();
            assert!(
                total <= by_group.iter().sum::<u64>(),
                "window {window_bytes}: {total} bytes fetched, more than the row groups"
            );
        }
        let (_, fetched) = read_in_pieces(bytes.clone(), 1).await;
        let (_, wider) = read_in_pieces(bytes, 5_000).await;
        assert!(fetched.len() > wider.len(), "a smaller window cuts finer");
    }

    #[tokio::test(flavor = "current_thread")]
    async fn a_small_first_window_then_the_rest_of_its_row_group_at_once() {
        let (bytes, schema) = file(true);
        let whole = rows(
            &schema,
            &decode("f.parquet", bytes.clone(), &wanted()).unwrap(),
        );
        let (_, by_group) = read_in_pieces(bytes.clone(), u64::MAX).await;
        let (batches, fetched) = read_from_first_piece(bytes, u64::MAX, Some(1)).await;
        assert_eq!(rows(&schema, &batches), whole);
        // The first window, the rest of the first row group, then the other row groups whole.
        assert_eq!(fetched.len(), 4, "pieces fetched: {fetched:?}");
        // (The first piece brings the dictionaries: `id`'s is most of the row group here.)
        assert!(
            fetched[0] < by_group[0],
            "the first piece fetched {} bytes of a {}-byte row group",
            fetched[0],
            by_group[0]
        );
        assert!(
            fetched[0] + fetched[1] <= by_group[0],
            "nothing fetched twice"
        );
        assert_eq!(fetched[2..], by_group[1..]);
    }

    #[tokio::test(flavor = "current_thread")]
    async fn the_first_piece_comes_in_batches_of_its_own_rows_and_the_rest_in_full_batches() {
        let (bytes, _) = file(true);
        let size = bytes.len() as u64;
        let memory = MemoryStore::new();
        memory.put("f.parquet", bytes).await.unwrap();
        let first_piece = FirstPiece {
            bytes: 2_000,
            rows: 64,
        };
        let mut file = RowGroupFile::open(
            &memory,
            "f.parquet",
            Some(size),
            wanted(),
            FOOTER_PREFETCH,
            u64::MAX,
            Some(first_piece),
        )
        .await
        .unwrap();
        let mut batch_rows = Vec::new();
        for _ in 0..2 {
            let piece = file.next_piece(&memory).await.unwrap().unwrap();
            batch_rows.push(piece.map(|b| b.unwrap().num_rows()).collect::<Vec<_>>());
        }
        let (first, rest) = (&batch_rows[0], &batch_rows[1]);
        assert!(
            first.len() > 1 && first.iter().all(|&n| n <= 64),
            "{first:?}"
        );
        assert_eq!(first[0], 64);
        assert!(rest.iter().any(|&n| n > 64), "{rest:?}");
    }

    #[tokio::test(flavor = "current_thread")]
    async fn without_an_offset_index_row_groups_are_read_whole() {
        let (bytes, schema) = file(false);
        let whole = rows(
            &schema,
            &decode("f.parquet", bytes.clone(), &wanted()).unwrap(),
        );
        let (batches, fetched) = read_in_pieces(bytes, 1).await;
        assert_eq!(rows(&schema, &batches), whole);
        assert_eq!(fetched.len(), 3);
    }

    /// Reads the whole file with `window_bytes`: its rows and the number of pieces, or the
    /// first error.
    async fn try_read(bytes: Bytes, window_bytes: u64) -> crate::Result<(Vec<RecordBatch>, usize)> {
        let (batches, fetched) = try_read_from_first_piece(bytes, window_bytes, None).await?;
        Ok((batches, fetched.len()))
    }

    /// The file's metadata with its offset index loaded.
    fn metadata_with_index(bytes: &Bytes) -> ParquetMetaData {
        ParquetMetaDataReader::new()
            .with_offset_index_policy(PageIndexPolicy::Required)
            .parse_and_finish(bytes)
            .unwrap()
    }

    /// A change to one column chunk's page locations (given its chunk's end offset).
    type Tamper = fn(&mut [PageLocation], i64);

    #[test]
    fn a_malformed_offset_index_is_an_error_naming_the_file_and_the_cause() {
        let (bytes, _) = file(true);
        let metadata = metadata_with_index(&bytes);
        let mask = ProjectionMask::all();
        let paged = super::windows("f.parquet", &metadata, &mask, 0, 0, 1).unwrap();
        assert!(
            paged.is_some_and(|p| p.windows.len() > 10),
            "untouched index"
        );
        let cases: [(usize, Tamper, &str); 9] = [
            (
                1,
                |p, end| p[3].offset = end,
                "column 1 page 3: bytes {end}+{size3} lie outside its column chunk {start}..{end}",
            ),
            (
                0,
                |p, _| p[2].offset = i64::MAX,
                "column 0 page 2: bytes 9223372036854775807+{size2} lie outside",
            ),
            (
                0,
                |p, _| p[0].offset = -1,
                "column 0 page 0: negative offset -1",
            ),
            (
                1,
                |p, _| p[4].offset = p[3].offset,
                "column 1 page 4: offset {3} is before the end {end3} of page 3",
            ),
            (
                0,
                |p, _| p[1].compressed_page_size = 0,
                "column 0 page 1: empty page",
            ),
            (
                0,
                |p, _| p[5].first_row_index = p[4].first_row_index - 1,
                "column 0 page 5: first row {row4m1} is not after page 4's first row {row4}",
            ),
            (
                1,
                |p, _| p[0].first_row_index = 1,
                "column 1 page 0: the first page starts at row 1, not 0",
            ),
            (
                0,
                |p, _| p[7].first_row_index = 5_000,
                "column 0 page 7: first row 5000 outside the row group's 5000 rows",
            ),
            (1, |p, _| p[2].first_row_index = -3, "first row -3 outside"),
        ];
        for (column, tamper, expected) in cases {
            let chunk = metadata.row_group(0).column(column).byte_range();
            let (start, end) = (chunk.0, chunk.0 + chunk.1);
            let mut index = metadata.offset_index().unwrap().clone();
            let pages = &mut index[0][column].page_locations;
            let expected = expected
                .replace("{3}", &pages[3].offset.to_string())
                .replace(
                    "{end3}",
                    &(pages[3].offset + i64::from(pages[3].compressed_page_size)).to_string(),
                )
                .replace("{size2}", &pages[2].compressed_page_size.to_string())
                .replace("{size3}", &pages[3].compressed_page_size.to_string())
                .replace("{row4}", &pages[4].first_row_index.to_string())
                .replace("{row4m1}", &(pages[4].first_row_index - 1).to_string())
                .replace("{start}", &start.to_string())
                .replace("{end}", &end.to_string());
            tamper(pages, end as i64);
            let tampered = metadata
                .clone()
                .into_builder()
                .set_offset_index(Some(index))
                .build();
            let error = super::windows("f.parquet", &tampered, &mask, 0, 0, 1)
                .expect_err(&expected)
                .to_string();
            assert!(
                error.starts_with("f.parquet: invalid Parquet page index: ")
                    && error.contains(&expected),
                "expected {expected:?}, got {error:?}"
            );
            let loaded = super::check_offset_index("f.parquet", &tampered).unwrap_err();
            assert_eq!(loaded.to_string(), error, "the check on loading");
        }
    }

    /// `bytes` with the offset index of row group 1's first column saying its first page
    /// starts at row 1 (the varint 0 of its `first_row_index` made 1: still valid Thrift).
    fn with_first_page_at_row_one(bytes: &Bytes) -> Bytes {
        let metadata = ParquetMetaDataReader::new()
            .parse_and_finish(bytes)
            .unwrap();
        let column = metadata.row_group(1).column(0);
        let mut at = usize::try_from(column.offset_index_offset().unwrap()).unwrap();
        let mut out = bytes.to_vec();
        let skip_varint = |at: &mut usize| {
            while out[*at] & 0x80 != 0 {
                *at += 1;
            }
            *at += 1;
        };
        // OffsetIndex { 1: list<PageLocation> }: the field, the list header (a varint size
        // after it when 15 or more), then PageLocation { 1: i64, 2: i32, 3: i64 first row }.
        assert_eq!(out[at], 0x19, "the page_locations field");
        let long_list = out[at + 1] >> 4 == 0xF;
        at += 2;
        if long_list {
            skip_varint(&mut at);
        }
        for field in [0x16, 0x15] {
            assert_eq!(out[at], field);
            at += 1;
            skip_varint(&mut at);
        }
        assert_eq!(out[at..at + 2], [0x16, 0x00], "first_row_index 0");
        out[at + 1] = 0x02;
        Bytes::from(out)
    }

    #[tokio::test(flavor = "current_thread")]
    async fn a_file_with_a_malformed_offset_index_fails_to_read_in_windows() {
        let (bytes, _) = file(true);
        let bad = with_first_page_at_row_one(&bytes);
        // (Only the index of row group 1 is wrong: it is checked when the index is loaded.)
        let error = try_read(bad.clone(), 1).await.unwrap_err().to_string();
        assert_eq!(
            error,
            "f.parquet: invalid Parquet page index: \
             column 0 page 0: the first page starts at row 1, not 0"
        );
        // Row groups read whole do not load the offset index.
        assert_eq!(try_read(bad, u64::MAX).await.unwrap().1, 3);
    }

    #[tokio::test(flavor = "current_thread")]
    async fn an_undecodable_offset_index_is_dropped_and_row_groups_read_whole() {
        let (bytes, schema) = file(true);
        let whole = rows(
            &schema,
            &decode("f.parquet", bytes.clone(), &wanted()).unwrap(),
        );
        let metadata = ParquetMetaDataReader::new()
            .parse_and_finish(&bytes)
            .unwrap();
        let column = metadata.row_group(1).column(1);
        let at = usize::try_from(column.offset_index_offset().unwrap()).unwrap();
        let len = usize::try_from(column.offset_index_length().unwrap()).unwrap();
        let mut bad = bytes.to_vec();
        bad[at..at + len].fill(0xFF);
        // (The Parquet reader drops an offset index it cannot decode.)
        let (batches, pieces) = try_read(Bytes::from(bad), 1).await.unwrap();
        assert_eq!(rows(&schema, &batches), whole);
        assert_eq!(pieces, 3, "one piece per row group: no windows");
    }

    #[test]
    fn a_window_selects_only_its_rows() {
        let window = super::Window {
            group: 0,
            rows: 100..250,
            ranges: Vec::new(),
        };
        let selection = window.selection(1_000);
        assert_eq!(selection.row_count(), 150);
        assert_eq!(selection.skipped_row_count(), 850);
    }
}
