//! Page windows: a Parquet row group cut into row ranges whose pages (found through the offset
//! index) fit a byte budget, so a row group larger than the memory budget is fetched and decoded
//! a few pages at a time.

use std::ops::Range;
use std::sync::Arc;

use bytes::Bytes;
use lakescope_storage::ObjectStore;
use parquet::arrow::arrow_reader::{RowSelection, RowSelector};
use parquet::arrow::ProjectionMask;
use parquet::file::metadata::{PageIndexPolicy, ParquetMetaData, ParquetMetaDataPushDecoder};
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
            DecodeResult::Data(loaded) => return Ok(Some(Arc::new(loaded))),
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

/// One wanted column chunk's data page locations.
struct ColumnPages<'a> {
    pages: &'a [PageLocation],
}

impl ColumnPages<'_> {
    /// Indices of the pages holding rows `rows` (rows of a page run to the next page's first).
    fn pages_for(&self, rows: &Range<usize>, total: usize) -> Range<usize> {
        let first_row = |i: usize| {
            self.pages
                .get(i)
                .map_or(total, |p| usize::try_from(p.first_row_index).unwrap_or(0))
        };
        let start = (0..self.pages.len())
            .find(|&i| first_row(i + 1) > rows.start)
            .unwrap_or(self.pages.len());
        let end = (start..self.pages.len())
            .find(|&i| first_row(i) >= rows.end)
            .unwrap_or(self.pages.len());
        start..end
    }

    fn page_range(&self, i: usize) -> Range<u64> {
        let p = &self.pages[i];
        let start = u64::try_from(p.offset).unwrap_or(0);
        start..start + u64::try_from(p.compressed_page_size).unwrap_or(0)
    }

    /// The bytes of the pages holding rows `rows`.
    fn range(&self, rows: &Range<usize>, total: usize) -> Option<Range<u64>> {
        let pages = self.pages_for(rows, total);
        (!pages.is_empty())
            .then(|| self.page_range(pages.start).start..self.page_range(pages.end - 1).end)
    }
}

/// A row group cut into windows of pages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PagedRowGroup {
    /// The wanted columns' dictionary pages: fetched once, used by every window.
    pub dictionaries: Vec<Range<u64>>,
    pub windows: Vec<Window>,
}

/// Cuts the rows of row group `group` from `from_row` on into windows of whole pages whose
/// wanted columns' bytes stay within `window_bytes` where the pages allow (a window holds at
/// least one page of each column; the dictionary pages come on top). `None` when the metadata
/// has no offset index for it. `metadata` must hold the offset index ([`load_offset_index`]).
pub(crate) fn windows(
    path: &str,
    metadata: &ParquetMetaData,
    mask: &ProjectionMask,
    group: usize,
    from_row: usize,
    window_bytes: u64,
) -> Result<Option<PagedRowGroup>> {
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
        let Some(pages) = index.get(i).map(|c| c.page_locations.as_slice()) else {
            return Ok(None);
        };
        let Some(first) = pages.first() else {
            return Ok(None);
        };
        let (start, _) = column.byte_range();
        let first_offset = u64::try_from(first.offset).map_err(|e| corrupt(path, e))?;
        if first_offset > start {
            dictionaries.push(start..first_offset);
        }
        columns.push(ColumnPages { pages });
    }
    // Rows where some column starts a page: the only places a window can end cheaply.
    let mut boundaries: Vec<usize> = columns
        .iter()
        .flat_map(|c| c.pages.iter())
        .filter_map(|p| usize::try_from(p.first_row_index).ok())
        .filter(|&r| r > from_row && r < total)
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
    use parquet::arrow::ArrowWriter;
    use parquet::file::properties::WriterProperties;

    use crate::read::parquet::{decode, RowGroupFile, FOOTER_PREFETCH};
    use crate::read::Wanted;
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

    /// [`read_in_pieces`] with a first piece of at most `first_window` bytes.
    async fn read_from_first_piece(
        bytes: Bytes,
        window_bytes: u64,
        first_window: Option<u64>,
    ) -> (Vec<RecordBatch>, Vec<u64>) {
        let memory = MemoryStore::new();
        let size = bytes.len() as u64;
        memory.put("f.parquet", bytes).await.unwrap();
        let meter = Arc::new(IoMeter::default());
        let store = MeteredStore::new(Rc::new(memory) as Rc<dyn ObjectStore>, meter.clone());
        let mut file = RowGroupFile::open(
            &store,
            "f.parquet",
            Some(size),
            wanted(),
            FOOTER_PREFETCH,
            window_bytes,
            first_window,
        )
        .await
        .unwrap();
        let mut batches = Vec::new();
        let mut fetched = Vec::new();
        loop {
            let before = meter.read();
            let Some(piece) = file.next_piece(&store).await.unwrap() else {
                break;
            };
            fetched.push(meter.read().since(&before).bytes_read);
            for batch in piece {
                batches.push(batch.unwrap());
            }
        }
        (batches, fetched)
    }

    fn rows(schema: &Schema, batches: &[RecordBatch]) -> RecordBatch {
        concat_batches(&Arc::new(schema.clone()), batches).unwrap()
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
