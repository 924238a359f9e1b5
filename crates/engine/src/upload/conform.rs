//! A file's columns mapped by name onto the table's columns and cast to their types, with errors
//! naming the file, the column and the first value that does not convert.

use super::UploadError;
use arrow_array::{new_null_array, Array, ArrayRef, RecordBatch};
use arrow_cast::display::{ArrayFormatter, FormatOptions};
use arrow_cast::{cast_with_options, CastOptions};
use arrow_schema::{DataType as ArrowType, Field, Schema, SchemaRef};
use lakescope_paimon::read::arrow_schema::to_arrow_type;
use lakescope_paimon::spec::DataField;
use std::sync::Arc;

/// The table an upload writes into, as the conversion needs it.
pub struct Target {
    file: String,
    table: String,
    /// Name, Paimon type text, Arrow type, nullable.
    columns: Vec<(String, String, ArrowType, bool)>,
    schema: SchemaRef,
}

impl Target {
    /// The columns `fields` (of table `table`) for file `file`.
    pub fn new(file: &str, table: &str, fields: &[DataField]) -> Self {
        let columns: Vec<_> = fields
            .iter()
            .map(|f| {
                (
                    f.name.clone(),
                    f.data_type.to_string(),
                    to_arrow_type(&f.data_type),
                    f.data_type.nullable,
                )
            })
            .collect();
        let fields: Vec<Field> = columns
            .iter()
            .map(|(name, _, t, _)| Field::new(name, t.clone(), true))
            .collect();
        Self {
            file: file.to_string(),
            table: table.to_string(),
            columns,
            schema: Arc::new(Schema::new(fields)),
        }
    }

    /// An error about the whole file.
    pub(crate) fn file_error(&self, cause: String) -> UploadError {
        UploadError::File {
            file: self.file.clone(),
            cause,
        }
    }

    fn column_error(&self, column: &str, cause: String) -> UploadError {
        UploadError::Column {
            file: self.file.clone(),
            column: column.to_string(),
            cause,
        }
    }

    /// Checks that the file's columns are exactly the table's (by name, any order).
    pub(crate) fn check_columns(&self, names: &[String]) -> Result<(), UploadError> {
        for (i, name) in names.iter().enumerate() {
            if names[..i].contains(name) {
                return Err(self.column_error(name, "appears twice in the file".into()));
            }
            if !self.columns.iter().any(|c| &c.0 == name) {
                let known: Vec<&str> = self.columns.iter().map(|c| c.0.as_str()).collect();
                return Err(self.column_error(
                    name,
                    format!(
                        "is not a column of {} (its columns: {})",
                        self.table,
                        known.join(", ")
                    ),
                ));
            }
        }
        if let Some(missing) = self.columns.iter().find(|c| !names.contains(&c.0)) {
            return Err(self.column_error(
                &missing.0,
                format!("{} has this column but the file does not", self.table),
            ));
        }
        Ok(())
    }

    /// `batch` (the file's rows from data row `first_row`, 1-based) as the table's columns in
    /// the table's order and types.
    pub(crate) fn conform(
        &self,
        batch: &RecordBatch,
        first_row: u64,
    ) -> Result<RecordBatch, UploadError> {
        let names: Vec<String> = batch
            .schema()
            .fields()
            .iter()
            .map(|f| f.name().clone())
            .collect();
        self.check_columns(&names)?;
        let mut out: Vec<ArrayRef> = Vec::with_capacity(self.columns.len());
        for (name, type_text, target, nullable) in &self.columns {
            let source = batch
                .column_by_name(name)
                .cloned()
                .unwrap_or_else(|| new_null_array(target, batch.num_rows()));
            let cast = if source.data_type() == target {
                source.clone()
            } else {
                let options = CastOptions {
                    safe: true,
                    ..CastOptions::default()
                };
                cast_with_options(&source, target, &options).map_err(|e| {
                    self.column_error(
                        name,
                        format!(
                            "the file's {} values cannot become {type_text}: {e}",
                            source.data_type()
                        ),
                    )
                })?
            };
            // A safe cast turns what does not convert into null: find the first such value.
            if let Some(row) = (0..cast.len()).find(|r| cast.is_null(*r) && source.is_valid(*r)) {
                let value = ArrayFormatter::try_new(source.as_ref(), &FormatOptions::default())
                    .map(|f| f.value(row).to_string())
                    .unwrap_or_default();
                return Err(self.column_error(
                    name,
                    format!(
                        "'{value}' (data row {}) is not a valid {type_text}",
                        first_row + row as u64
                    ),
                ));
            }
            if !nullable {
                if let Some(row) = (0..cast.len()).find(|r| cast.is_null(*r)) {
                    return Err(self.column_error(
                        name,
                        format!(
                            "is NOT NULL in {} but data row {} has no value",
                            self.table,
                            first_row + row as u64
                        ),
                    ));
                }
            }
            out.push(cast);
        }
        RecordBatch::try_new(self.schema.clone(), out)
            .map_err(|e| self.file_error(format!("cannot assemble the rows: {e}")))
    }
}
