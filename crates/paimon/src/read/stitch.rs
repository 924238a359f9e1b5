//! Data evolution: the files of one row-id range hold different columns of the same rows
//! (`_FIRST_ROW_ID`, `_WRITE_COLS`); a row is stitched from the newest file holding each column
//! (Paimon's `DataEvolutionSplitRead`).

use crate::spec::manifest::DataFileMeta;
use crate::spec::schema::TableSchema;
use crate::{Error, Result};
use arrow_array::{new_null_array, ArrayRef, RecordBatch};
use arrow_schema::SchemaRef;
use std::collections::BTreeSet;

/// Whether the files of a split must be read by row-id range: some file holds only some columns
/// or two files share row ids.
pub(crate) fn needs_stitching(files: &[DataFileMeta]) -> bool {
    files.iter().any(|f| f.write_cols.is_some())
        || groups(files.to_vec(), |f| f.file_name.clone())
            .map_or(true, |g| g.iter().any(|g| g.len() > 1))
}

/// The files in row-id order, those sharing row ids together, each group newest first (by
/// `max_sequence_number`). Files without a first row id are groups of their own. Overlapping
/// files whose ranges differ are refused, as Paimon refuses them ("should be all row id ranges
/// same"). `file_path` names a file in errors.
pub(crate) fn groups(
    mut files: Vec<DataFileMeta>,
    file_path: impl Fn(&DataFileMeta) -> String,
) -> Result<Vec<Vec<DataFileMeta>>> {
    files.sort_by_key(|f| f.first_row_id.unwrap_or(i64::MIN));
    let mut out: Vec<Vec<DataFileMeta>> = Vec::new();
    let mut end = i64::MIN; // exclusive end of the last group's range
    for file in files {
        let Some(first) = file.first_row_id else {
            out.push(vec![file]);
            continue;
        };
        match out.last_mut() {
            Some(group) if first < end && group[0].first_row_id.is_some() => {
                let head = &group[0];
                if head.first_row_id != Some(first) || head.row_count != file.row_count {
                    return Err(Error::unsupported(
                        file_path(&file),
                        format!(
                            "data evolution: rows {first}..{} overlap rows {}..{} of {} without covering the same range",
                            first.saturating_add(file.row_count),
                            head.first_row_id.unwrap_or_default(),
                            end,
                            head.file_name
                        ),
                    ));
                }
                group.push(file);
            }
            _ => {
                end = first.saturating_add(file.row_count);
                out.push(vec![file]);
            }
        }
    }
    for group in &mut out {
        group.sort_by_key(|f| std::cmp::Reverse(f.max_sequence_number));
    }
    Ok(out)
}

/// The field ids a file holds: its `_WRITE_COLS` (names in its own schema), or every field.
pub(crate) fn written_field_ids(file: &DataFileMeta, file_schema: &TableSchema) -> BTreeSet<i32> {
    match &file.write_cols {
        None => file_schema.fields.iter().map(|f| f.id).collect(),
        Some(cols) => cols
            .iter()
            .filter_map(|c| file_schema.field(c).map(|f| f.id))
            .collect(),
    }
}

/// One file of a group, read whole with the read schema (columns it lacks are null).
pub(crate) struct Part {
    /// The file's store key, for errors.
    pub path: String,
    /// Field ids the file holds.
    pub fields: BTreeSet<i32>,
    /// Rows of the file ([`DataFileMeta::row_count`]).
    pub rows: usize,
    /// The file's rows in the read schema.
    pub batch: RecordBatch,
}

/// Stitches the parts of one row-id range (newest first) into rows of `schema`, whose columns
/// are the read fields with ids `field_ids`: each column comes from the newest part holding it;
/// a column no part holds is null (refused when the field is not nullable).
pub(crate) fn stitch(schema: &SchemaRef, field_ids: &[i32], parts: &[Part]) -> Result<RecordBatch> {
    let Some(first) = parts.first() else {
        return Ok(RecordBatch::new_empty(schema.clone()));
    };
    for part in parts {
        if part.batch.num_rows() != part.rows || part.rows != first.rows {
            return Err(Error::corrupt(
                &part.path,
                format!(
                    "data evolution: {} rows read, {} recorded, {} in {} of the same row ids",
                    part.batch.num_rows(),
                    part.rows,
                    first.rows,
                    first.path
                ),
            ));
        }
    }
    let mut columns: Vec<ArrayRef> = Vec::with_capacity(field_ids.len());
    for (i, (id, field)) in field_ids.iter().zip(schema.fields()).enumerate() {
        match parts.iter().find(|p| p.fields.contains(id)) {
            Some(part) => columns.push(part.batch.column(i).clone()),
            None if field.is_nullable() => {
                columns.push(new_null_array(field.data_type(), first.rows))
            }
            None => {
                return Err(Error::corrupt(
                    &first.path,
                    format!(
                        "data evolution: no file of these row ids holds the non-null column '{}'",
                        field.name()
                    ),
                ))
            }
        }
    }
    RecordBatch::try_new(schema.clone(), columns)
        .map_err(|e| Error::corrupt(&first.path, format!("data evolution: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(name: &str, first: Option<i64>, rows: i64, seq: i64) -> DataFileMeta {
        DataFileMeta {
            file_name: name.into(),
            row_count: rows,
            first_row_id: first,
            max_sequence_number: seq,
            ..DataFileMeta::default()
        }
    }

    fn names(groups: &[Vec<DataFileMeta>]) -> Vec<Vec<&str>> {
        groups
            .iter()
            .map(|g| g.iter().map(|f| f.file_name.as_str()).collect())
            .collect()
    }

    #[test]
    fn files_of_the_same_rows_group_newest_first() {
        let files = vec![
            file("b", Some(8), 8, 2),
            file("a", Some(0), 8, 1),
            file("a2", Some(0), 8, 3),
            file("plain", None, 4, 9),
            file("b2", Some(8), 8, 3),
        ];
        let g = groups(files, |f| f.file_name.clone()).unwrap();
        assert_eq!(
            names(&g),
            vec![vec!["plain"], vec!["a2", "a"], vec!["b2", "b"]]
        );
    }

    #[test]
    fn overlapping_files_of_other_ranges_are_refused() {
        let files = vec![file("a", Some(0), 8, 1), file("half", Some(4), 8, 2)];
        let msg = groups(files, |f| format!("t/bucket-0/{}", f.file_name))
            .unwrap_err()
            .to_string();
        assert!(
            msg.contains("t/bucket-0/half") && msg.contains("data evolution"),
            "{msg}"
        );
    }

    #[test]
    fn only_overlaps_or_partial_files_need_stitching() {
        let plain = vec![file("a", Some(0), 8, 1), file("b", Some(8), 8, 2)];
        assert!(!needs_stitching(&plain));
        let overlap = vec![file("a", Some(0), 8, 1), file("a2", Some(0), 8, 2)];
        assert!(needs_stitching(&overlap));
        let mut partial = file("p", Some(16), 2, 3);
        partial.write_cols = Some(vec!["b".into()]);
        assert!(needs_stitching(&[partial]));
    }
}
