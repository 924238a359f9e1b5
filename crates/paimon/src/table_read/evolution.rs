//! Data-evolution splits: each row-id range stitched from the files holding its columns (and its BLOB columns' `.blob` files), with row tracking and the range's deletion vector.

use super::files::file_columns;
use super::split::SplitReader;
use crate::read::{self, FileKind};
use crate::scan::Split;
use crate::spec::{DataFileMeta, TypeKind};
use crate::{Error, Result};
use arrow_array::RecordBatch;
use arrow_schema::Schema;
use std::collections::BTreeMap;
use std::sync::Arc;

impl SplitReader<'_> {
    /// The rows of one row-id range of a data-evolution split ([`read::stitch::groups`], newest
    /// file first): each column from the newest file holding it, with `_ROW_ID` and
    /// `_SEQUENCE_NUMBER` appended when `row_tracking` ([`read::row_tracking::append`]), the
    /// range's deletion vector applied.
    pub(super) async fn read_group(
        &self,
        split: &Split,
        group: &[std::sync::Arc<DataFileMeta>],
        row_tracking: bool,
    ) -> Result<Vec<RecordBatch>> {
        let schema = read::output_schema(&self.schema.fields, FileKind::Append);
        let ids: Vec<i32> = self.schema.fields.iter().map(|f| f.id).collect();
        let schema = &schema;
        let (blobs, files): (Vec<&DataFileMeta>, Vec<&DataFileMeta>) = group
            .iter()
            .map(AsRef::as_ref)
            .partition(|f| read::stitch::is_blob_file(f));
        let reads = files.iter().map(|file| async move {
            let (path, format, file_schema) = self.locate_part(split, file).await?;
            read::blob::check_inline(&path, file, &file_schema)?;
            let file_fields = file_columns(&path, format, &file_schema, file, FileKind::Append)?;
            let bytes = self.table.store().get(&path).await?;
            let batches = read::read_file(
                &path,
                bytes,
                format,
                &file_fields,
                &self.schema.fields,
                FileKind::Append,
            )
            .await?;
            let batch = arrow_select::concat::concat_batches(schema, &batches)
                .map_err(|e| Error::corrupt(&path, e))?;
            Ok::<_, Error>(read::stitch::Part {
                fields: read::stitch::written_field_ids(file, &file_schema),
                rows: usize::try_from(file.row_count).unwrap_or(usize::MAX),
                path,
                batch,
            })
        });
        let mut parts = futures::future::try_join_all(reads).await?;
        // The blob files of each BLOB column, one part per column over the group's rows.
        let mut bunches: BTreeMap<Option<&[String]>, Vec<DataFileMeta>> = BTreeMap::new();
        for blob in &blobs {
            let cols = blob.write_cols.as_deref();
            bunches.entry(cols).or_default().push((*blob).clone());
        }
        for bunch in bunches.into_values() {
            let Some(range) = files.first() else {
                break; // groups() puts blob files only into groups of data files
            };
            let start = range.first_row_id.unwrap_or_default();
            let kept = read::stitch::blob_bunch(bunch, start, range.row_count, |f| {
                self.file_path(split, f)
            })?;
            parts.push(self.read_blob_part(split, &kept).await?);
        }
        let mut rows = read::stitch::stitch(schema, &ids, &parts)?;
        if row_tracking {
            // the newest data file's, as Paimon's `DataEvolutionSplitRead` takes them
            let Some(newest) = files.first() else {
                return Err(Error::Invalid("a row-id range of no data files".into()));
            };
            rows = read::row_tracking::append(&self.file_path(split, newest), newest, &rows)?;
        }
        // The range's deletion vector is its anchor's: the oldest data file (Paimon's
        // `DataEvolutionUtils.retrieveAnchorFile`), positions counted in the range; blob files
        // have no deletion vectors.
        let anchor = files.into_iter().min_by(|a, b| {
            (a.max_sequence_number, &a.file_name).cmp(&(b.max_sequence_number, &b.file_name))
        });
        let dv = match anchor {
            Some(file) => self.deletion_vector(split, file).await?,
            None => None,
        };
        match dv {
            Some(dv) => Ok(dv.apply(vec![rows])?),
            None => Ok(vec![rows]),
        }
    }

    /// The `.blob` files of one BLOB column over a data-evolution range ([`read::stitch::blob_bunch`],
    /// in row order) as a stitch part: the column as references (only each file's index is
    /// read, see [`read::blob`]), the other columns null.
    async fn read_blob_part(
        &self,
        split: &Split,
        bunch: &[DataFileMeta],
    ) -> Result<read::stitch::Part> {
        let mut blob_id = None;
        let mut pieces = Vec::with_capacity(bunch.len());
        let mut path = String::new();
        for file in bunch {
            path = self
                .table
                .data_file_path(&split.partition, split.bucket, file)?;
            let file_schema = self.table.schema(file.schema_id).await?;
            let id = read::blob::blob_field(&path, file, &file_schema)?.id;
            if blob_id.is_some_and(|b| b != id) {
                return Err(Error::corrupt(
                    &path,
                    "blob files of one range hold other columns",
                ));
            }
            blob_id = Some(id);
            let rows = usize::try_from(file.row_count).map_err(|e| Error::corrupt(&path, e))?;
            let size = u64::try_from(file.file_size).map_err(|e| Error::corrupt(&path, e))?;
            let store = self.table.store().as_ref();
            pieces.push(read::blob::read_references(store, &path, size, rows).await?);
        }
        let pieces: Vec<&dyn arrow_array::Array> = pieces.iter().map(|a| a.as_ref()).collect();
        let references =
            arrow_select::concat::concat(&pieces).map_err(|e| Error::corrupt(&path, e))?;
        let rows = references.len();
        let Some(blob_id) = blob_id else {
            return Err(Error::Invalid("a blob part of no files".into()));
        };
        let mut fields = Vec::with_capacity(self.schema.fields.len());
        let mut columns = Vec::with_capacity(self.schema.fields.len());
        for field in &self.schema.fields {
            let arrow = read::to_arrow_field(field).with_nullable(true);
            if field.id == blob_id {
                if field.data_type.kind != TypeKind::Blob {
                    return Err(Error::unsupported(
                        &path,
                        format!(
                            "blob file of column '{}', now of type {}",
                            field.name, field.data_type
                        ),
                    ));
                }
                columns.push(references.clone());
            } else {
                columns.push(arrow_array::new_null_array(arrow.data_type(), rows));
            }
            fields.push(arrow);
        }
        let batch = RecordBatch::try_new(Arc::new(Schema::new(fields)), columns)
            .map_err(|e| Error::corrupt(&path, e))?;
        Ok(read::stitch::Part {
            fields: std::collections::BTreeSet::from([blob_id]),
            rows,
            path,
            batch,
        })
    }
}
