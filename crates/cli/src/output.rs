//! Printing record batches as canonical JSON Lines, CSV or an aligned text table, as they come.

use crate::Format;
use arrow_array::RecordBatch;
use arrow_cast::display::{ArrayFormatter, FormatOptions};
use arrow_schema::SchemaRef;
use lakescope_engine::{canonical, csv_text};
use std::io::Write;

/// Rows of a text table whose widest values set its columns' widths before it is printed; later
/// rows widen a column from where a wider value comes (as psql's `FETCH_COUNT` does).
const TABLE_BLOCK_ROWS: usize = 1_000;

type PrintResult = Result<(), Box<dyn std::error::Error>>;

/// Writes `batches` to `out` in `format`.
pub fn write(
    out: &mut impl Write,
    schema: &SchemaRef,
    batches: &[RecordBatch],
    format: Format,
) -> PrintResult {
    let mut printer = Printer::new(out, format);
    printer.schema(schema)?;
    for batch in batches {
        printer.batch(batch)?;
    }
    printer.finish()
}

/// Prints rows batch by batch: CSV and the text table hold at most [`TABLE_BLOCK_ROWS`] rows of
/// text, so a table of any size prints in bounded memory; JSON Lines are canonical and sorted
/// (the form of the corpus's expected rows), so they are printed at the end.
pub struct Printer<W: Write> {
    out: W,
    format: Format,
    header: Vec<String>,
    /// The text table's column widths, once its first block is printed.
    widths: Option<Vec<usize>>,
    /// The text table's first rows, until there are enough to set the widths.
    block: Vec<Vec<String>>,
    /// JSON Lines' rows, to sort.
    lines: Vec<String>,
    rows: usize,
}

impl<W: Write> Printer<W> {
    pub fn new(out: W, format: Format) -> Self {
        Self {
            out,
            format,
            header: Vec::new(),
            widths: None,
            block: Vec::new(),
            lines: Vec::new(),
            rows: 0,
        }
    }

    /// The rows' schema, before any batch: the CSV header is printed at once.
    pub fn schema(&mut self, schema: &SchemaRef) -> PrintResult {
        self.header = schema.fields().iter().map(|f| f.name().clone()).collect();
        if let Format::Csv = self.format {
            let header = self.header.iter().map(Some);
            writeln!(self.out, "{}", csv_text::line(header))?;
        }
        Ok(())
    }

    /// Prints a batch's rows (the text table's first ones once its first block is full).
    pub fn batch(&mut self, batch: &RecordBatch) -> PrintResult {
        self.rows += batch.num_rows();
        match self.format {
            Format::Jsonl => {
                self.lines
                    .extend(canonical::batches_to_lines_unsorted(std::slice::from_ref(
                        batch,
                    ))?);
            }
            Format::Csv => {
                for row in text_rows(batch)? {
                    writeln!(self.out, "{}", csv_text::line(row.into_iter().map(Some)))?;
                }
            }
            Format::Table => {
                for row in text_rows(batch)? {
                    match self.widths.as_mut() {
                        Some(widths) => {
                            widen(widths, &row);
                            writeln!(self.out, "{}", aligned(&row, widths))?;
                        }
                        None => self.block.push(row),
                    }
                }
                if self.widths.is_none() && self.block.len() >= TABLE_BLOCK_ROWS {
                    self.print_block()?;
                }
            }
        }
        Ok(())
    }

    /// Prints what is held back (the sorted JSON Lines, a short table and its row count).
    pub fn finish(mut self) -> PrintResult {
        match self.format {
            Format::Jsonl => {
                self.lines.sort_unstable();
                for line in &self.lines {
                    writeln!(self.out, "{line}")?;
                }
            }
            Format::Csv => {}
            Format::Table => {
                if self.widths.is_none() {
                    self.print_block()?;
                }
                writeln!(self.out, "({} rows)", self.rows)?;
            }
        }
        self.out.flush()?;
        Ok(())
    }

    /// Prints the text table's header, rule and first block, as wide as their widest values.
    fn print_block(&mut self) -> PrintResult {
        let mut widths: Vec<usize> = self.header.iter().map(|h| h.chars().count()).collect();
        for row in &self.block {
            widen(&mut widths, row);
        }
        writeln!(self.out, "{}", aligned(&self.header, &widths))?;
        let rule: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
        writeln!(self.out, "{}", rule.join("-+-"))?;
        for row in std::mem::take(&mut self.block) {
            writeln!(self.out, "{}", aligned(&row, &widths))?;
        }
        self.widths = Some(widths);
        Ok(())
    }
}

/// Widens `widths` to the cells of `row`.
fn widen(widths: &mut [usize], row: &[String]) {
    for (w, cell) in widths.iter_mut().zip(row) {
        *w = (*w).max(cell.chars().count());
    }
}

/// A text table's line: the cells padded to `widths`, separated by ` | `.
fn aligned(cells: &[String], widths: &[usize]) -> String {
    cells
        .iter()
        .zip(widths)
        .map(|(c, w)| format!("{c:<w$}"))
        .collect::<Vec<_>>()
        .join(" | ")
}

/// Every cell of a batch as display text (NULL for nulls).
fn text_rows(batch: &RecordBatch) -> Result<Vec<Vec<String>>, arrow_schema::ArrowError> {
    let options = FormatOptions::default().with_null("NULL");
    let formatters = batch
        .columns()
        .iter()
        .map(|c| ArrayFormatter::try_new(c.as_ref(), &options))
        .collect::<Result<Vec<_>, _>>()?;
    Ok((0..batch.num_rows())
        .map(|row| {
            formatters
                .iter()
                .map(|f| f.value(row).to_string())
                .collect()
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{Int64Array, StringArray};
    use arrow_schema::{DataType, Field, Schema};
    use std::sync::Arc;

    fn batch(ids: std::ops::Range<i64>, name: impl Fn(i64) -> String) -> RecordBatch {
        let schema = Schema::new(vec![
            Field::new("id", DataType::Int64, false),
            Field::new("name", DataType::Utf8, true),
        ]);
        RecordBatch::try_new(
            Arc::new(schema),
            vec![
                Arc::new(Int64Array::from_iter_values(ids.clone())),
                Arc::new(StringArray::from_iter_values(ids.map(name))),
            ],
        )
        .unwrap()
    }

    fn printed(batches: &[RecordBatch], format: Format) -> Vec<String> {
        let mut out = Vec::new();
        write(&mut out, &batches[0].schema(), batches, format).unwrap();
        String::from_utf8(out)
            .unwrap()
            .lines()
            .map(str::to_string)
            .collect()
    }

    #[test]
    fn a_short_table_is_aligned_on_its_widest_value() {
        let lines = printed(
            &[batch(0..3, |i| "x".repeat(i as usize + 3))],
            Format::Table,
        );
        assert_eq!(
            lines,
            [
                "id | name ",
                "---+------",
                "0  | xxx  ",
                "1  | xxxx ",
                "2  | xxxxx",
                "(3 rows)"
            ]
        );
    }

    /// The first block of a long table sets the widths before anything is printed; a wider
    /// value later widens its column from that row on, and every row is printed once, in order.
    #[test]
    fn a_long_table_prints_block_by_block_and_widens_later() {
        let n = TABLE_BLOCK_ROWS as i64 + 10;
        let wide = n - 5;
        let name = |i: i64| {
            if i == wide {
                "w".repeat(12)
            } else {
                format!("n{}", i % 10)
            }
        };
        let block = TABLE_BLOCK_ROWS as i64;
        let batches = [
            batch(0..600, name),
            batch(600..block, name),
            batch(block..n, name),
        ];
        let lines = printed(&batches, Format::Table);
        assert_eq!(lines.len(), 2 + n as usize + 1);
        assert_eq!(lines[0], "id  | name");
        assert_eq!(lines[1], "----+-----");
        assert_eq!(lines[2], "0   | n0  ");
        assert_eq!(lines[2 + 999], "999 | n9  ");
        assert_eq!(lines[2 + 1000], "1000 | n0  ");
        assert_eq!(lines[2 + wide as usize], format!("{wide} | wwwwwwwwwwww"));
        assert_eq!(
            lines[3 + wide as usize],
            format!("{} | n6          ", wide + 1)
        );
        assert_eq!(lines.last().unwrap(), &format!("({n} rows)"));
    }

    /// CSV is printed as the batches come (the header at once), JSON Lines sorted at the end.
    #[test]
    fn csv_streams_in_order_and_json_lines_are_sorted() {
        let mut out = Vec::new();
        let mut printer = Printer::new(&mut out, Format::Csv);
        let first = batch(5..7, |i| format!("n{i}"));
        printer.schema(&first.schema()).unwrap();
        printer.batch(&first).unwrap();
        printer.batch(&batch(1..2, |_| "a,b".into())).unwrap();
        printer.finish().unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "id,name\n5,n5\n6,n6\n1,\"a,b\"\n"
        );
        let lines = printed(
            &[
                batch(5..7, |i| format!("n{i}")),
                batch(1..2, |_| "z".into()),
            ],
            Format::Jsonl,
        );
        assert_eq!(
            lines,
            [
                r#"{"id":1,"name":"z"}"#,
                r#"{"id":5,"name":"n5"}"#,
                r#"{"id":6,"name":"n6"}"#
            ]
        );
    }
}
