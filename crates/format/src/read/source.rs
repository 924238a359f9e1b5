//! A data file as a lazy source of read-schema batches: fetched whole (one GET) or one Parquet
//! row group (or a few pages) at a time (ranged GETs), decoded batch by batch, its deletion vector applied per
//! batch (positions counted from the file's first row).

use std::rc::Rc;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use lakescope_storage::ObjectStore;

use super::parquet::{self, FirstPiece, ParquetBatches, RowGroupFile};
use super::{
    assemble_batch, avro, evolution, mosaic, orc, plan_schema, row_file, vortex, wanted_columns,
    ColumnPlan, DeletionVector, FileFormat, FileKind,
};
use crate::spec::DataField;
use crate::Result;

/// How a source fetches its file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fetch {
    /// One GET of the whole file; Parquet: with `first_rows`, its first batch holds that many
    /// rows (later ones [`BATCH_SIZE`](super::BATCH_SIZE)) and is decoded as soon as the file
    /// arrived, while the merge's other runs are still arriving.
    Whole {
        /// Rows of the first Parquet batch (`None`: [`BATCH_SIZE`](super::BATCH_SIZE)).
        first_rows: Option<usize>,
    },
    /// Parquet: only rows `[start, end)` (positions from the file's first row): the footer (the
    /// last `footer_prefetch` bytes), then the wanted columns' pages holding those rows, found
    /// through the offset index (without one, the row groups holding them). Other formats are
    /// refused.
    Rows {
        /// The first row read.
        start: u64,
        /// The row after the last one read.
        end: u64,
        /// Bytes of the first request, from the end of the file.
        footer_prefetch: u64,
    },
    /// Parquet: the footer (a first request of the last `footer_prefetch` bytes), then one row
    /// group's wanted column chunks at a time, or, in a row group whose chunks are larger than
    /// `window_bytes`, a few pages at a time (other formats are fetched whole). With
    /// `first_piece`, a small first piece (the first rows soon).
    RowGroups {
        /// Bytes of the first request, from the end of the file (footer and offset index).
        footer_prefetch: u64,
        /// Row groups whose wanted chunks are larger than this are fetched a few pages at a time.
        window_bytes: u64,
        /// A small first piece, for the first rows soon.
        first_piece: Option<FirstPiece>,
    },
}

/// One data file to read.
pub struct FileSpec<'a> {
    /// Store key of the file.
    pub path: String,
    /// The file's format.
    pub format: FileFormat,
    /// Size from the manifest.
    pub size: u64,
    /// The schema the file was written with.
    pub file_fields: &'a [DataField],
    /// The read schema.
    pub read_fields: &'a [DataField],
    /// Plain rows or key-value records.
    pub kind: FileKind,
}

/// The batches of one data file, in file order, produced on demand.
pub struct FileSource {
    store: Rc<dyn ObjectStore>,
    path: String,
    plan: Vec<ColumnPlan>,
    kind: FileKind,
    schema: SchemaRef,
    dv: Option<DeletionVector>,
    /// File row position of the next decoded row.
    position: u64,
    decoded: Decoded,
}

enum Decoded {
    Parquet(ParquetBatches),
    /// ORC, Avro and row files: decoded whole.
    Batches(std::vec::IntoIter<RecordBatch>),
    RowGroups {
        file: RowGroupFile,
        current: Option<ParquetBatches>,
    },
}

impl FileSource {
    /// Fetches the file (or its footer and first row group) and prepares decoding.
    pub async fn open(
        store: Rc<dyn ObjectStore>,
        file: FileSpec<'_>,
        fetch: Fetch,
    ) -> Result<Self> {
        let plan = evolution::plan(file.file_fields, file.read_fields);
        let wanted = wanted_columns(&plan, file.kind);
        let path = file.path;
        let mut position = 0;
        let decoded = match (file.format, fetch) {
            (
                FileFormat::Parquet,
                Fetch::Rows {
                    start,
                    end,
                    footer_prefetch,
                },
            ) => {
                position = start;
                let size = Some(file.size);
                Decoded::Parquet(
                    parquet::batches_of_rows(
                        store.as_ref(),
                        &path,
                        size,
                        &wanted,
                        start..end,
                        footer_prefetch,
                    )
                    .await?,
                )
            }
            (_, Fetch::Rows { start, end, .. }) => {
                return Err(crate::Error::unsupported(
                    &path,
                    format!("reading rows {start}..{end} of a file that is not Parquet"),
                ))
            }
            (
                FileFormat::Parquet,
                Fetch::RowGroups {
                    footer_prefetch,
                    window_bytes,
                    first_piece,
                },
            ) => {
                let size = Some(file.size);
                let mut rg = RowGroupFile::open(
                    store.as_ref(),
                    &path,
                    size,
                    wanted,
                    footer_prefetch,
                    window_bytes,
                    first_piece,
                )
                .await?;
                let current = rg.next_piece(store.as_ref()).await?;
                Decoded::RowGroups { file: rg, current }
            }
            (format, fetch) => {
                let bytes = store.get(&path).await?;
                match (format, fetch) {
                    (
                        FileFormat::Parquet,
                        Fetch::Whole {
                            first_rows: Some(rows),
                        },
                    ) => Decoded::Parquet(parquet::batches_from_first_rows(
                        &path, bytes, &wanted, rows,
                    )?),
                    (FileFormat::Parquet, _) => Decoded::Parquet(parquet::batches(
                        &path,
                        bytes,
                        &wanted,
                        super::BATCH_SIZE,
                    )?),
                    (FileFormat::Orc, _) => {
                        Decoded::Batches(orc::decode(&path, bytes, &wanted).await?.into_iter())
                    }
                    (FileFormat::Avro, _) => {
                        Decoded::Batches(avro::decode(&path, bytes, &wanted).await?.into_iter())
                    }
                    (FileFormat::Row, _) => Decoded::Batches(
                        row_file::decode(&path, bytes, file.file_fields, &wanted)?.into_iter(),
                    ),
                    (FileFormat::Mosaic, _) => {
                        Decoded::Batches(mosaic::decode(&path, bytes, &wanted)?.into_iter())
                    }
                    (FileFormat::Vortex, _) => {
                        Decoded::Batches(vortex::decode(&path, bytes, &wanted)?.into_iter())
                    }
                }
            }
        };
        Ok(Self {
            store,
            schema: plan_schema(&plan, file.kind),
            path,
            plan,
            kind: file.kind,
            dv: None,
            position,
            decoded,
        })
    }

    /// Applies `dv` (positions from the file's first row) to the batches not produced yet;
    /// call before the first [`Self::next`].
    pub fn with_deletion_vector(mut self, dv: Option<DeletionVector>) -> Self {
        self.dv = dv;
        self
    }

    /// The next non-empty batch of live rows (read schema), or `None` at the end of the file.
    pub async fn next(&mut self) -> Result<Option<RecordBatch>> {
        loop {
            let Some(raw) = self.next_decoded().await? else {
                return Ok(None);
            };
            let rows = raw.num_rows() as u64;
            let raw = super::variant::decode_batch(&self.path, &self.plan, raw).await?;
            let batch = assemble_batch(&self.path, &self.plan, self.kind, &self.schema, raw)?;
            let batch = match &self.dv {
                Some(dv) => dv.apply_at(batch, self.position)?,
                None => batch,
            };
            self.position += rows;
            if batch.num_rows() > 0 {
                return Ok(Some(batch));
            }
        }
    }

    async fn next_decoded(&mut self) -> Result<Option<RecordBatch>> {
        match &mut self.decoded {
            Decoded::Parquet(batches) => batches.next().transpose(),
            Decoded::Batches(batches) => Ok(batches.next()),
            Decoded::RowGroups { file, current } => loop {
                if let Some(batches) = current {
                    if let Some(batch) = batches.next() {
                        return batch.map(Some);
                    }
                }
                // Drop the finished piece's bytes before fetching the next.
                *current = None;
                match file.next_piece(self.store.as_ref()).await? {
                    Some(batches) => *current = Some(batches),
                    None => return Ok(None),
                }
            },
        }
    }
}
