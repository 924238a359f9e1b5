//! CSV with a header row, decoded incrementally (arrow-csv's push decoder) into chunks of the
//! table's columns; a record may span slices.

use super::conform::Target;
use super::UploadError;
use arrow_array::RecordBatch;
use arrow_csv::reader::{Decoder, Format, ReaderBuilder};
use arrow_schema::{DataType, Field, Schema};
use std::io::Cursor;
use std::sync::Arc;

/// The decoder of one CSV file.
pub(crate) struct CsvChunks<'a> {
    target: &'a Target,
    chunk_rows: usize,
    /// Bytes before the end of the header line (until it is complete).
    head: Vec<u8>,
    decoder: Option<Decoder>,
    /// Data rows decoded so far.
    rows: u64,
}

impl<'a> CsvChunks<'a> {
    pub(crate) fn new(target: &'a Target, chunk_rows: usize) -> Self {
        Self {
            target,
            chunk_rows,
            head: Vec::new(),
            decoder: None,
            rows: 0,
        }
    }

    fn error(&self, e: impl std::fmt::Display) -> UploadError {
        self.target.file_error(format!("not valid CSV: {e}"))
    }

    /// The decoder for the header line `line` (names checked against the table).
    fn start(&self, line: &[u8]) -> Result<Decoder, UploadError> {
        let (schema, _) = Format::default()
            .with_header(true)
            .infer_schema(Cursor::new(line), Some(0))
            .map_err(|e| self.error(e))?;
        let names: Vec<String> = schema.fields().iter().map(|f| f.name().clone()).collect();
        self.target.check_columns(&names)?;
        // Every column as text: the conversion to the table's types names what fails.
        let text = Schema::new(
            names
                .iter()
                .map(|n| Field::new(n, DataType::Utf8, true))
                .collect::<Vec<_>>(),
        );
        Ok(ReaderBuilder::new(Arc::new(text))
            .with_header(true)
            .with_batch_size(self.chunk_rows)
            .build_decoder())
    }

    /// Decodes `bytes` (the next slice); returns the chunks completed by it.
    pub(crate) fn push(&mut self, bytes: &[u8]) -> Result<Vec<RecordBatch>, UploadError> {
        let mut decoder = match self.decoder.take() {
            Some(d) => d,
            None => {
                self.head.extend_from_slice(bytes);
                let Some(end) = self.head.iter().position(|b| *b == b'\n') else {
                    return Ok(Vec::new());
                };
                let decoder = self.start(&self.head[..=end])?;
                let head = std::mem::take(&mut self.head);
                self.decoder = Some(decoder);
                return self.push(&head);
            }
        };
        let mut out = Vec::new();
        let mut rest = bytes;
        while !rest.is_empty() {
            let used = decoder.decode(rest).map_err(|e| self.error(e))?;
            rest = &rest[used..];
            if decoder.capacity() == 0 {
                if let Some(batch) = decoder.flush().map_err(|e| self.error(e))? {
                    out.push(self.conform(&batch)?);
                }
            }
        }
        self.decoder = Some(decoder);
        Ok(out)
    }

    /// The last chunk, after the final slice.
    pub(crate) fn finish(&mut self) -> Result<Vec<RecordBatch>, UploadError> {
        let mut decoder = match self.decoder.take() {
            Some(d) => d,
            None if self.head.is_empty() => {
                return Err(self.target.file_error("the file is empty".into()))
            }
            // A header line without a line break.
            None => {
                let head = std::mem::take(&mut self.head);
                let mut decoder = self.start(&head)?;
                decoder.decode(&head).map_err(|e| self.error(e))?;
                decoder
            }
        };
        // An empty slice ends the last record.
        decoder.decode(&[]).map_err(|e| self.error(e))?;
        match decoder.flush().map_err(|e| self.error(e))? {
            Some(batch) => Ok(vec![self.conform(&batch)?]),
            None => Ok(Vec::new()),
        }
    }

    fn conform(&mut self, batch: &RecordBatch) -> Result<RecordBatch, UploadError> {
        let first = self.rows + 1;
        self.rows += batch.num_rows() as u64;
        self.target.conform(batch, first)
    }
}
