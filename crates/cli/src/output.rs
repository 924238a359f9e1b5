//! Printing record batches as canonical JSON Lines, CSV or an aligned text table.

use crate::Format;
use arrow_array::RecordBatch;
use arrow_cast::display::{ArrayFormatter, FormatOptions};
use arrow_schema::SchemaRef;
use lakescope_engine::{canonical, csv_text};
use std::io::Write;

/// Writes `batches` to `out` in `format`.
pub fn write(
    out: &mut impl Write,
    schema: &SchemaRef,
    batches: &[RecordBatch],
    format: Format,
) -> Result<(), Box<dyn std::error::Error>> {
    match format {
        Format::Jsonl => {
            for line in canonical::batches_to_lines(batches)? {
                writeln!(out, "{line}")?;
            }
        }
        Format::Csv => {
            let header = schema.fields().iter().map(|f| Some(f.name()));
            writeln!(out, "{}", csv_text::line(header))?;
            for row in text_rows(batches)? {
                writeln!(out, "{}", csv_text::line(row.into_iter().map(Some)))?;
            }
        }
        Format::Table => {
            let header: Vec<String> = schema.fields().iter().map(|f| f.name().clone()).collect();
            let rows = text_rows(batches)?;
            let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
            for row in &rows {
                for (w, cell) in widths.iter_mut().zip(row) {
                    *w = (*w).max(cell.chars().count());
                }
            }
            let line = |cells: &[String]| -> String {
                cells
                    .iter()
                    .zip(&widths)
                    .map(|(c, w)| format!("{c:<w$}"))
                    .collect::<Vec<_>>()
                    .join(" | ")
            };
            writeln!(out, "{}", line(&header))?;
            let rule: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
            writeln!(out, "{}", rule.join("-+-"))?;
            for row in &rows {
                writeln!(out, "{}", line(row))?;
            }
            writeln!(out, "({} rows)", rows.len())?;
        }
    }
    out.flush()?;
    Ok(())
}

/// Every cell as display text (NULL for nulls).
fn text_rows(batches: &[RecordBatch]) -> Result<Vec<Vec<String>>, arrow_schema::ArrowError> {
    let options = FormatOptions::default().with_null("NULL");
    let mut rows = Vec::new();
    for batch in batches {
        let formatters = batch
            .columns()
            .iter()
            .map(|c| ArrayFormatter::try_new(c.as_ref(), &options))
            .collect::<Result<Vec<_>, _>>()?;
        for row in 0..batch.num_rows() {
            rows.push(
                formatters
                    .iter()
                    .map(|f| f.value(row).to_string())
                    .collect(),
            );
        }
    }
    Ok(rows)
}
