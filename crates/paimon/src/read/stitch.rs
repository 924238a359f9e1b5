//! Data evolution: the files of one row-id range hold different columns of the same rows
//! (`_FIRST_ROW_ID`, `_WRITE_COLS`); a row is stitched from the newest file holding each column
//! (Paimon's `DataEvolutionSplitRead`).

use crate::spec::manifest::DataFileMeta;
use crate::spec::schema::TableSchema;
use crate::{Error, Result};
use arrow_array::{new_null_array, ArrayRef, RecordBatch};
use arrow_schema::SchemaRef;
use std::collections::BTreeSet;
use std::sync::Arc;

/// Whether the files of a split must be read by row-id range: some file holds only some columns
/// or two files share row ids.
pub(crate) fn needs_stitching(files: &[Arc<DataFileMeta>]) -> bool {
    files.iter().any(|f| f.write_cols.is_some())
        || groups(files.to_vec(), |f| f.file_name.clone())
            .map_or(true, |g| g.iter().any(|g| g.len() > 1))
}

/// Whether `file` is a `.blob` file (one BLOB column of some rows, see [`super::blob`]).
pub(crate) fn is_blob_file(file: &DataFileMeta) -> bool {
    file.file_name.ends_with(super::blob::BLOB_EXTENSION)
}

/// The files in row-id order, those sharing row ids together, each group newest first (by
/// `max_sequence_number`). Files without a first row id are groups of their own. Overlapping
/// files whose ranges differ are refused, as Paimon refuses them ("should be all row id ranges
/// same"), except `.blob` files: blob files roll by size, so each joins the group whose range
/// holds its rows ([`blob_bunch`] checks they cover it). `file_path` names a file in errors.
pub(crate) fn groups(
    files: Vec<Arc<DataFileMeta>>,
    file_path: impl Fn(&DataFileMeta) -> String,
) -> Result<Vec<Vec<Arc<DataFileMeta>>>> {
    let (blobs, mut files): (Vec<_>, Vec<_>) = files.into_iter().partition(|f| is_blob_file(f));
    files.sort_by_key(|f| f.first_row_id.unwrap_or(i64::MIN));
    let mut out: Vec<Vec<Arc<DataFileMeta>>> = Vec::new();
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
    for blob in blobs {
        let range = |f: &DataFileMeta| f.first_row_id.map(|s| (s, s.saturating_add(f.row_count)));
        let home = range(&blob).and_then(|(start, end)| {
            out.iter_mut().find(|g| {
                range(&g[0])
                    .is_some_and(|(gs, ge)| gs <= start && end <= ge && !is_blob_file(&g[0]))
            })
        });
        match home {
            Some(group) => group.push(blob),
            None => {
                return Err(Error::unsupported(
                    file_path(&blob),
                    "data evolution: a blob file whose rows no data file holds",
                ))
            }
        }
    }
    for group in &mut out {
        group.sort_by_key(|f| std::cmp::Reverse(f.max_sequence_number));
    }
    Ok(out)
}

/// The blob files of one column that make up the rows `start..start + rows` of a group, in row
/// order (Paimon's `BlobBunch`): of files starting at the same row the newest is kept; a file
/// overlapping the previous one must be older and is skipped. The kept files must cover the
/// range exactly (a BLOB column covering only some rows is refused). `file_path` names a file
/// in errors.
pub(crate) fn blob_bunch(
    mut files: Vec<DataFileMeta>,
    start: i64,
    rows: i64,
    file_path: impl Fn(&DataFileMeta) -> String,
) -> Result<Vec<DataFileMeta>> {
    files.sort_by_key(|f| {
        (
            f.first_row_id.unwrap_or(i64::MIN),
            std::cmp::Reverse(f.max_sequence_number),
        )
    });
    let mut kept: Vec<DataFileMeta> = Vec::new();
    let mut next = start;
    for file in files {
        let first = file.first_row_id.unwrap_or(i64::MIN);
        if let Some(last) = kept.last() {
            if first < next {
                if file.max_sequence_number >= last.max_sequence_number {
                    return Err(Error::unsupported(
                        file_path(&file),
                        format!(
                            "data evolution: blob file overlapping {} is not older than it",
                            last.file_name
                        ),
                    ));
                }
                continue;
            }
        }
        if first != next {
            return Err(Error::unsupported(
                file_path(&file),
                format!("data evolution: blob file starts at row {first}, row {next} expected"),
            ));
        }
        next = first.saturating_add(file.row_count);
        kept.push(file);
    }
    match kept.first() {
        Some(_) if next == start.saturating_add(rows) => Ok(kept),
        Some(first) => Err(Error::unsupported(
            file_path(first),
            format!(
                "data evolution: blob files cover rows {start}..{next} of {start}..{}",
                start.saturating_add(rows)
            ),
        )),
        None => Ok(kept),
    }
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

    fn arcs(files: Vec<DataFileMeta>) -> Vec<Arc<DataFileMeta>> {
        files.into_iter().map(Arc::new).collect()
    }

    fn names(groups: &[Vec<Arc<DataFileMeta>>]) -> Vec<Vec<&str>> {
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
        let g = groups(arcs(files), |f| f.file_name.clone()).unwrap();
        assert_eq!(
            names(&g),
            vec![vec!["plain"], vec!["a2", "a"], vec!["b2", "b"]]
        );
    }

    #[test]
    fn overlapping_files_of_other_ranges_are_refused() {
        let files = vec![file("a", Some(0), 8, 1), file("half", Some(4), 8, 2)];
        let msg = groups(arcs(files), |f| format!("t/bucket-0/{}", f.file_name))
            .unwrap_err()
            .to_string();
        assert!(
            msg.contains("t/bucket-0/half") && msg.contains("data evolution"),
            "{msg}"
        );
    }

    #[test]
    fn rolled_blob_files_join_the_group_holding_their_rows() {
        let files = vec![
            file("d.parquet", Some(0), 3, 1),
            file("b-1.blob", Some(1), 2, 1),
            file("b-0.blob", Some(0), 1, 1),
            file("e.parquet", Some(3), 2, 2),
        ];
        let g = groups(arcs(files), |f| f.file_name.clone()).unwrap();
        assert_eq!(
            names(&g),
            vec![vec!["d.parquet", "b-1.blob", "b-0.blob"], vec!["e.parquet"]]
        );
        let stray = vec![
            file("d.parquet", Some(0), 3, 1),
            file("b.blob", Some(2), 2, 1),
        ];
        let msg = groups(arcs(stray), |f| f.file_name.clone())
            .unwrap_err()
            .to_string();
        assert!(
            msg.starts_with("b.blob") && msg.contains("no data file"),
            "{msg}"
        );
    }

    #[test]
    fn blob_bunches_keep_the_newest_file_of_each_row_and_cover_the_range() {
        let path = |f: &DataFileMeta| f.file_name.clone();
        let files = vec![
            file("b1", Some(1), 2, 1),
            file("b0-old", Some(0), 1, 1),
            file("b0-new", Some(0), 1, 3),
        ];
        let kept = blob_bunch(files, 0, 3, path).unwrap();
        let kept: Vec<&str> = kept.iter().map(|f| f.file_name.as_str()).collect();
        assert_eq!(kept, ["b0-new", "b1"]);
        let gap = vec![file("b0", Some(0), 1, 1), file("b2", Some(2), 1, 1)];
        let msg = blob_bunch(gap, 0, 3, path).unwrap_err().to_string();
        assert!(msg.contains("row 1 expected"), "{msg}");
        let short = vec![file("b0", Some(0), 2, 1)];
        let msg = blob_bunch(short, 0, 3, path).unwrap_err().to_string();
        assert!(msg.contains("cover rows 0..2 of 0..3"), "{msg}");
        let newer_overlap = vec![file("b0", Some(0), 2, 1), file("b1", Some(1), 2, 2)];
        assert!(blob_bunch(newer_overlap, 0, 3, path).is_err());
    }

    #[test]
    fn only_overlaps_or_partial_files_need_stitching() {
        let plain = vec![file("a", Some(0), 8, 1), file("b", Some(8), 8, 2)];
        assert!(!needs_stitching(&arcs(plain)));
        let overlap = vec![file("a", Some(0), 8, 1), file("a2", Some(0), 8, 2)];
        assert!(needs_stitching(&arcs(overlap)));
        let mut partial = file("p", Some(16), 2, 3);
        partial.write_cols = Some(vec!["b".into()]);
        assert!(needs_stitching(&[Arc::new(partial)]));
    }
}
