//! The Data tab's export: the rows held as CSV or JSON Lines, written piece by piece into one
//! file of the origin's private file system and downloaded from there (any size: a Blob built in
//! memory ends at the browser's limit for Blobs, about 400 MiB in headless Chromium here), or
//! into a Blob where the browser has no such file system.

use crate::util::{offer, Frame};
use lakescope_engine::csv_text;
use lakescope_storage::{OpfsStore, OpfsWriter};

/// Bytes of text gathered before they are written on.
const PIECE_BYTES: usize = 1 << 20;
/// The OPFS folder of the export file (`opfs://` warehouses are named by their users; the
/// leading dot keeps this one apart from the names the app suggests).
const EXPORT_FOLDER: &str = ".lakescope-exports";
/// The one export file the origin keeps: each export replaces the last.
const EXPORT_FILE: &str = "last-export";

/// Offers the rows read as `<name>.jsonl` or `<name>.csv` (the cells as the grid shows them);
/// a row that cannot be written ends the export with its number.
pub async fn export(frame: &Frame, name: &str, jsonl: bool) -> Result<(), String> {
    let (file_name, mime) = if jsonl {
        (format!("{name}.jsonl"), "application/x-ndjson")
    } else {
        (format!("{name}.csv"), "text/csv")
    };
    let mut out = ExportFile::create(mime).await;
    if jsonl {
        let mut row = 0;
        for b in &frame.batches {
            for r in 0..b.num_rows() {
                row += 1;
                let line = lakescope_engine::canonical::row_to_json_line(b, r)
                    .map_err(|e| format!("row {row}: {e}"))?;
                out.push_line(&line).await?;
            }
        }
    } else {
        // The cells as the grid shows them (NULL: empty), not the CLI's Arrow display.
        let cols = frame.columns();
        out.push_line(&csv_text::line(cols.iter().map(Some)))
            .await?;
        for r in 0..frame.len() {
            let line = csv_text::line((0..cols.len()).map(|c| frame.cell(r, c)));
            out.push_line(&line).await?;
        }
    }
    out.offer(&file_name).await
}

/// Where an export's text goes.
enum Target {
    /// The OPFS export file.
    File(OpfsWriter),
    /// A Blob in memory, the pieces so far (no OPFS here).
    Memory(Option<web_sys::Blob>),
}

/// An export being written.
struct ExportFile {
    mime: &'static str,
    target: Target,
    piece: String,
}

impl ExportFile {
    /// The OPFS export file, or a Blob where OPFS cannot be written.
    async fn create(mime: &'static str) -> Self {
        let writer = match OpfsStore::new(EXPORT_FOLDER) {
            Ok(store) => store.writer(EXPORT_FILE).await.ok(),
            Err(_) => None,
        };
        Self {
            mime,
            target: writer.map_or(Target::Memory(None), Target::File),
            piece: String::new(),
        }
    }

    /// Adds `line` and a line break.
    async fn push_line(&mut self, line: &str) -> Result<(), String> {
        self.piece.push_str(line);
        self.piece.push('\n');
        if self.piece.len() >= PIECE_BYTES {
            self.write_piece().await?;
        }
        Ok(())
    }

    async fn write_piece(&mut self) -> Result<(), String> {
        match &mut self.target {
            Target::File(writer) => writer
                .write(self.piece.as_bytes())
                .await
                .map_err(|e| e.to_string())?,
            Target::Memory(blob) => {
                // the Blob so far followed by the piece (the browser does not copy the first)
                let piece = js_sys::Uint8Array::from(self.piece.as_bytes());
                let parts = match blob.as_ref() {
                    Some(before) => js_sys::Array::of2(before, &piece),
                    None => js_sys::Array::of1(&piece),
                };
                let opts = web_sys::BlobPropertyBag::new();
                opts.set_type(self.mime);
                let joined = web_sys::Blob::new_with_blob_sequence_and_options(&parts, &opts)
                    .map_err(|e| format!("the browser refused the export's data: {e:?}"))?;
                *blob = Some(joined);
            }
        }
        self.piece.clear();
        Ok(())
    }

    /// Offers what was written as the download `name`.
    async fn offer(mut self, name: &str) -> Result<(), String> {
        if !self.piece.is_empty() || matches!(self.target, Target::Memory(None)) {
            self.write_piece().await?;
        }
        match self.target {
            Target::File(writer) => {
                let file = writer.finish().await.map_err(|e| e.to_string())?;
                offer(name, &file);
            }
            Target::Memory(Some(blob)) => offer(name, &blob),
            Target::Memory(None) => {}
        }
        Ok(())
    }
}
