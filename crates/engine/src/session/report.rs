//! A statement's result as plain data: what the SQL console shows, posted from the SQL worker to the page.

use super::{Outcome, StatementResult};
use crate::canonical::cell_text;
use arrow_array::RecordBatch;
use lakescope_sql::Parsed;
use serde::{Deserialize, Serialize};

/// One statement of a script and what it did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StatementReport {
    /// Statement number in the script, from 1.
    pub number: usize,
    /// Where the statement starts (line and column from 1).
    pub line: u64,
    /// See `line`.
    pub column: u64,
    /// The statement's text.
    pub text: String,
    /// What it did.
    pub outcome: ReportOutcome,
}

/// The result of one statement (externally tagged, as [`super::ConsoleEvent`] that carries it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReportOutcome {
    /// A statement without rows: Flink's `[INFO]` confirmation.
    Done {
        /// The confirmation.
        message: String,
    },
    /// Rows, as display text (`None`: SQL NULL), at most the report's row limit.
    Rows {
        /// Column names and types.
        columns: Vec<ReportColumn>,
        /// The first rows.
        rows: Vec<Vec<Option<String>>>,
        /// How many rows the statement returned in all.
        total_rows: usize,
    },
    /// The statement failed: nothing was committed.
    Error {
        /// Where (the offending token when known).
        line: u64,
        /// See `line`.
        column: u64,
        /// What went wrong and what to do.
        message: String,
    },
}

/// A result column.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReportColumn {
    /// Its name.
    pub name: String,
    /// Its Arrow type, as text.
    pub data_type: String,
}

impl StatementReport {
    /// The report of `parsed` with its `result`, keeping at most `max_rows` rows.
    pub fn new(parsed: &Parsed, result: &StatementResult<Outcome>, max_rows: usize) -> Self {
        let outcome = match result {
            Ok(Outcome::Done(message)) => ReportOutcome::Done {
                message: message.clone(),
            },
            Ok(Outcome::Rows(output)) => ReportOutcome::Rows {
                columns: output
                    .schema
                    .fields()
                    .iter()
                    .map(|f| ReportColumn {
                        name: f.name().clone(),
                        data_type: f.data_type().to_string(),
                    })
                    .collect(),
                rows: text_rows(&output.batches, max_rows),
                total_rows: output.num_rows(),
            },
            Err(e) => ReportOutcome::Error {
                line: e.pos.line,
                column: e.pos.column,
                message: e.message.clone(),
            },
        };
        Self {
            number: parsed.number,
            line: parsed.pos.line,
            column: parsed.pos.column,
            text: parsed.text.clone(),
            outcome,
        }
    }

    /// Whether the statement failed.
    pub fn failed(&self) -> bool {
        matches!(self.outcome, ReportOutcome::Error { .. })
    }
}

/// The display text of the first `limit` rows.
fn text_rows(batches: &[RecordBatch], limit: usize) -> Vec<Vec<Option<String>>> {
    batches
        .iter()
        .flat_map(|batch| {
            (0..batch.num_rows()).map(move |row| {
                batch
                    .columns()
                    .iter()
                    .map(|column| cell_text(column.as_ref(), row))
                    .collect()
            })
        })
        .take(limit)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::{QueryOutput, StatementError};
    use arrow_array::{Int32Array, StringArray};
    use arrow_schema::{DataType, Field, Schema};
    use lakescope_sql::Pos;
    use std::sync::Arc;

    fn parsed(text: &str) -> Parsed {
        lakescope_sql::parse_script(text)
            .into_iter()
            .next()
            .expect("one statement")
    }

    #[test]
    fn rows_are_text_limited_and_counted() {
        let schema = Arc::new(Schema::new(vec![
            Field::new("id", DataType::Int32, false),
            Field::new("name", DataType::Utf8, true),
        ]));
        let batch = RecordBatch::try_new(
            schema.clone(),
            vec![
                Arc::new(Int32Array::from(vec![1, 2, 3])),
                Arc::new(StringArray::from(vec![Some("<b>x</b>"), None, Some("z")])),
            ],
        )
        .expect("batch");
        let output = Outcome::Rows(QueryOutput {
            schema,
            batches: vec![batch],
        });
        let report = StatementReport::new(&parsed("SELECT 1"), &Ok(output), 2);
        assert_eq!(
            report.outcome,
            ReportOutcome::Rows {
                columns: vec![
                    ReportColumn {
                        name: "id".into(),
                        data_type: "Int32".into()
                    },
                    ReportColumn {
                        name: "name".into(),
                        data_type: "Utf8".into()
                    },
                ],
                rows: vec![
                    vec![Some("1".into()), Some("<b>x</b>".into())],
                    vec![Some("2".into()), None],
                ],
                total_rows: 3,
            }
        );
        assert!(!report.failed());
    }

    #[test]
    fn errors_keep_their_position_and_serialise_externally_tagged() {
        let error = StatementError::new(Pos::new(2, 7), "Table `t` not found");
        let report = StatementReport::new(&parsed("\n  SELECT * FROM t"), &Err(error), 10);
        assert!(report.failed());
        assert_eq!((report.line, report.number), (2, 1));
        let json = serde_json::to_value(&report).expect("json");
        assert_eq!(
            json["outcome"],
            serde_json::json!({"error": {"line": 2, "column": 7, "message": "Table `t` not found"}})
        );
        let back: StatementReport = serde_json::from_value(json).expect("round trip");
        assert_eq!(back, report);
    }
}
