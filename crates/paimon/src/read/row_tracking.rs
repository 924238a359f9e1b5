//! Row tracking (`row-tracking.enabled`): each row's `_ROW_ID` and `_SEQUENCE_NUMBER`, the
//! columns Paimon's `$row_tracking` view appends (Java `RowTrackingTable`, `SpecialFields`).

use super::SEQUENCE_NUMBER;
use crate::spec::manifest::DataFileMeta;
use crate::spec::schema::TableSchema;
use crate::{Error, Result};
use arrow_array::{ArrayRef, Int64Array, RecordBatch};
use arrow_schema::{DataType, Field, Schema};
use std::sync::Arc;

/// Name of the row-id column (Java `SpecialFields.ROW_ID`).
pub const ROW_ID: &str = "_ROW_ID";

/// The two columns appended to the table's: `_ROW_ID`, `_SEQUENCE_NUMBER`, BIGINT NOT NULL.
pub fn fields() -> [Field; 2] {
    [
        Field::new(ROW_ID, DataType::Int64, false),
        Field::new(SEQUENCE_NUMBER, DataType::Int64, false),
    ]
}

/// Whether `columns` names `_ROW_ID` or `_SEQUENCE_NUMBER`, the hidden columns of a
/// row-tracking table (Paimon's Spark metadata columns: read only when named, not by `*`).
pub(crate) fn names_hidden(columns: Option<&[String]>) -> bool {
    columns.is_some_and(|cols| cols.iter().any(|c| hidden_index(c).is_some()))
}

/// Position of a hidden column among the two [`fields`] (`None`: not one of them).
pub(crate) fn hidden_index(column: &str) -> Option<usize> {
    [ROW_ID, SEQUENCE_NUMBER].iter().position(|h| *h == column)
}

/// Whether the table tracks rows (`row-tracking.enabled`).
pub(crate) fn tracks_rows(schema: &TableSchema) -> Result<bool> {
    Ok(schema
        .core_options()
        .get_bool("row-tracking.enabled", false)?)
}

/// Refuses a table whose rows are not tracked (`what` names the table or its `$row_tracking`
/// view): row ids need `row-tracking.enabled` (Java refuses the view too) and an append table;
/// a column already named like one of the two is refused as Java's
/// `SpecialFields.rowTypeWithRowTracking` refuses it.
pub(crate) fn check_table(what: &str, schema: &TableSchema) -> Result<()> {
    if !tracks_rows(schema)? {
        return Err(Error::Invalid(format!(
            "{what}: the table does not track rows (set 'row-tracking.enabled' = 'true' when creating it)"
        )));
    }
    if !schema.primary_keys.is_empty() {
        return Err(Error::unsupported(
            what,
            "row tracking of a primary-key table (row tracking is for append tables)",
        ));
    }
    if let Some(f) = schema
        .fields
        .iter()
        .find(|f| hidden_index(&f.name).is_some())
    {
        return Err(Error::Invalid(format!(
            "{what}: column '{}' conflicts with the row-tracking column of that name",
            f.name
        )));
    }
    Ok(())
}

/// Appends `_ROW_ID` and `_SEQUENCE_NUMBER` to `rows`, the rows of one row-id range in file
/// order (before deletion vectors), whose newest data file is `newest` (`path` names it):
/// row `i` has `_ROW_ID` = the file's first row id + `i` and `_SEQUENCE_NUMBER` = the file's
/// max sequence number, as Paimon's `DataFileRecordReader` assigns them when the file does not
/// store them. Every data file of a range covers the same row ids, and Java's
/// `DataEvolutionSplitRead` takes both columns from the newest one (files sorted by max
/// sequence number, descending), so a row stitched from several files gets the newest file's
/// sequence number. Files that store the columns themselves (`_WRITE_COLS` naming them, written
/// by Java's compaction, whose stored values may differ from the file's) are refused.
pub(crate) fn append(path: &str, newest: &DataFileMeta, rows: &RecordBatch) -> Result<RecordBatch> {
    let mut stored = newest.write_cols.iter().flatten();
    if let Some(col) = stored.find(|c| *c == ROW_ID || *c == SEQUENCE_NUMBER) {
        return Err(Error::unsupported(
            path,
            format!("row tracking of a data file storing its own '{col}' column"),
        ));
    }
    let Some(first) = newest.first_row_id else {
        return Err(Error::corrupt(
            path,
            "a data file of a row-tracking table without a first row id (_FIRST_ROW_ID)",
        ));
    };
    let n = rows.num_rows();
    let count = i64::try_from(n).map_err(|e| Error::corrupt(path, e))?;
    if count != newest.row_count || first.checked_add(count).is_none() {
        return Err(Error::corrupt(
            path,
            format!(
                "row tracking: {n} rows read, {} recorded from row id {first}",
                newest.row_count
            ),
        ));
    }
    let ids: ArrayRef = Arc::new(Int64Array::from_iter_values(first..first + count));
    let seqs: ArrayRef = Arc::new(Int64Array::from_value(newest.max_sequence_number, n));
    let mut schema = rows.schema().fields().to_vec();
    schema.extend(fields().into_iter().map(Arc::new));
    let mut columns = rows.columns().to_vec();
    columns.extend([ids, seqs]);
    RecordBatch::try_new(Arc::new(Schema::new(schema)), columns)
        .map_err(|e| Error::corrupt(path, format!("row tracking: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::manifest::DataFileMeta;
    use arrow_array::{Array, StringArray};

    fn file(first: Option<i64>, rows: i64, max_seq: i64, cols: Option<&[&str]>) -> DataFileMeta {
        DataFileMeta {
            file_name: "f.parquet".into(),
            row_count: rows,
            first_row_id: first,
            max_sequence_number: max_seq,
            write_cols: cols.map(|c| c.iter().map(|s| s.to_string()).collect()),
            ..DataFileMeta::default()
        }
    }

    fn batch(n: usize) -> RecordBatch {
        let b: ArrayRef = Arc::new(StringArray::from(vec!["x"; n]));
        RecordBatch::try_from_iter([("b", b)]).unwrap()
    }

    fn longs(a: &ArrayRef) -> Vec<i64> {
        let a = a.as_any().downcast_ref::<Int64Array>().unwrap();
        assert_eq!(a.null_count(), 0);
        a.values().to_vec()
    }

    #[test]
    fn row_ids_count_from_the_first_row_id_and_take_the_file_sequence_number() {
        let out = append("p", &file(Some(8), 3, 5, Some(&["b"])), &batch(3)).unwrap();
        assert_eq!(out.schema().field(1).name(), ROW_ID);
        assert!(!out.schema().field(2).is_nullable());
        assert_eq!(longs(out.column(1)), [8, 9, 10]);
        assert_eq!(longs(out.column(2)), [5, 5, 5]);
    }

    #[test]
    fn files_storing_the_columns_or_without_row_ids_are_refused() {
        let stored = file(Some(0), 2, 1, Some(&["b", "_ROW_ID", "_SEQUENCE_NUMBER"]));
        let err = append("p", &stored, &batch(2)).unwrap_err();
        assert!(matches!(err, Error::Unsupported { .. }), "{err}");
        assert!(err.to_string().contains("'_ROW_ID'"), "{err}");
        let err = append("p", &file(None, 2, 1, None), &batch(2)).unwrap_err();
        assert!(err.to_string().contains("_FIRST_ROW_ID"), "{err}");
        let err = append("p", &file(Some(0), 3, 1, None), &batch(2)).unwrap_err();
        assert!(err.to_string().contains("2 rows read, 3 recorded"), "{err}");
    }
}
