//! One data file of a split: its key, format and write schema, opened as a lazy source or decoded whole, and its deletion vector.

use super::split::SplitReader;
use crate::read::source::{Fetch, FileSource, FileSpec};
use crate::read::{self, DeletionVector, FileFormat, FileKind};
use crate::scan::Split;
use crate::spec::{DataField, DataFileMeta, TableSchema};
use crate::{Error, Result};
use arrow_array::RecordBatch;
use std::rc::Rc;

impl SplitReader<'_> {
    /// A data file's store key, for messages (its name when the path cannot be built).
    pub(super) fn file_path(&self, split: &Split, file: &DataFileMeta) -> String {
        self.table
            .data_file_path(&split.partition, split.bucket, file)
            .unwrap_or_else(|_| file.file_name.clone())
    }

    /// The path, format and write schema of one data file of `split`, read on its own (a file
    /// of only some columns is refused: it is stitched with others, see [`Self::read_group`]).
    async fn locate(
        &self,
        split: &Split,
        file: &DataFileMeta,
    ) -> Result<(String, FileFormat, Rc<TableSchema>)> {
        let located = self.locate_part(split, file).await?;
        read::support::check_write_cols(&located.0, file, &located.2)?;
        read::blob::check_inline(&located.0, file, &located.2)?;
        Ok(located)
    }

    /// [`Self::locate`] of a file that may hold only some columns (`_WRITE_COLS`).
    pub(super) async fn locate_part(
        &self,
        split: &Split,
        file: &DataFileMeta,
    ) -> Result<(String, FileFormat, Rc<TableSchema>)> {
        let path = self
            .table
            .data_file_path(&split.partition, split.bucket, file)?;
        let format = match file.file_name.rsplit_once('.') {
            Some((_, ext)) => FileFormat::from_option(ext)
                .ok_or_else(|| Error::unsupported(&path, format!("data file format '{ext}'")))?,
            None => self.default_format.ok_or_else(|| {
                Error::unsupported(
                    &path,
                    format!(
                        "data file format '{}'",
                        self.schema.core_options().file_format()
                    ),
                )
            })?,
        };
        if format == FileFormat::Vortex {
            read::vortex::check_supported(&path)?;
        }
        let file_schema = self.table.schema(file.schema_id).await?;
        Ok((path, format, file_schema))
    }

    /// Opens one data file of `split` as a lazy source with its deletion vector.
    pub(super) async fn open_file(
        &self,
        split: &Split,
        file: &DataFileMeta,
        fetch: Fetch,
    ) -> Result<FileSource> {
        let (path, format, file_schema) = self.locate(split, file).await?;
        let file_fields = file_columns(&path, format, &file_schema, file, self.kind())?;
        let spec = FileSpec {
            path,
            format,
            size: u64::try_from(file.file_size).unwrap_or(0),
            file_fields: &file_fields,
            read_fields: &self.schema.fields,
            kind: self.kind(),
        };
        let store = self.table.store().clone();
        let (dv, source) = futures::future::try_join(self.deletion_vector(split, file), async {
            Ok(FileSource::open(store, spec, fetch).await?)
        })
        .await?;
        Ok(source.with_deletion_vector(dv))
    }

    /// Decodes one data file with the read schema (no deletion vector applied): the table's
    /// columns, plus `_SEQUENCE_NUMBER` and `_VALUE_KIND` for key-value files.
    pub(crate) async fn read_data_file(
        &self,
        split: &Split,
        file: &DataFileMeta,
    ) -> Result<Vec<RecordBatch>> {
        let (path, format, file_schema) = self.locate(split, file).await?;
        let file_fields = file_columns(&path, format, &file_schema, file, self.kind())?;
        let bytes = self.table.store().get(&path).await?;
        read::read_file(
            &path,
            bytes,
            format,
            &file_fields,
            &self.schema.fields,
            self.kind(),
        )
        .await
    }

    /// The rows of one data file still live in `split`: [`Self::read_data_file`] with the
    /// file's deletion vector applied.
    pub(crate) async fn read_live_rows(
        &self,
        split: &Split,
        file: &DataFileMeta,
    ) -> Result<Vec<RecordBatch>> {
        let batches = self.read_data_file(split, file).await?;
        match self.deletion_vector(split, file).await? {
            Some(dv) => Ok(dv.apply(batches)?),
            None => Ok(batches),
        }
    }

    /// The deletion vector of `file` in `split`, if any.
    pub(crate) async fn deletion_vector(
        &self,
        split: &Split,
        file: &DataFileMeta,
    ) -> Result<Option<DeletionVector>> {
        let Some(dv) = split.deletion_files.get(&file.file_name) else {
            return Ok(None);
        };
        let bytes = self.table.store().get(&dv.index_file_path).await?;
        let dv = read::deletion_vector::decode_range(
            &dv.index_file_path,
            &bytes,
            dv.offset as u64,
            dv.length as u64,
        )?;
        Ok(Some(dv))
    }
}

/// The columns of `file` as its decoder needs them: its schema's fields (formats that store
/// their own schema are matched by name), or for a Paimon row-format file the exact row type it
/// was written with.
pub(super) fn file_columns<'a>(
    path: &str,
    format: FileFormat,
    file_schema: &'a TableSchema,
    file: &DataFileMeta,
    kind: FileKind,
) -> Result<std::borrow::Cow<'a, [DataField]>> {
    Ok(match format {
        FileFormat::Row => std::borrow::Cow::Owned(read::row_file_layout(
            path,
            file_schema,
            file.write_cols.as_deref(),
            kind,
        )?),
        _ => std::borrow::Cow::Borrowed(&file_schema.fields),
    })
}
