//! Which append files to cut into pieces of rows so that readers sharing a plan's splits finish together.

use crate::scan::Split;

/// What reading a piece of a file costs beyond its share of the whole file's rows, as a fraction
/// of the piece's rows: each piece fetches and decodes its own footer, offset index and
/// dictionary pages (measured on `perf.append_rows`, 1,000,000 rows in one row group: two halves
/// cost ≈ 25% more CPU than the whole file, session 27).
const PIECE_OVERHEAD: f64 = 0.25;

/// `splits` (in plan order) for `readers` readers that claim them in that order, each taking the
/// next as it becomes free: the last `t` splits `pieces_of` can cut are each cut into up to
/// `readers` pieces, where `t` is the number (none, when cutting does not help) whose simulated
/// finish — every reader claiming the next split when it is free, a piece costing
/// [`PIECE_OVERHEAD`] more per row — is earliest. Whole files come first, so rows keep their
/// order, and only as many files are cut (each cut costs CPU) as evening out the readers needs.
pub(super) fn cut_for_readers(
    splits: Vec<Split>,
    readers: usize,
    pieces_of: impl Fn(&Split, usize) -> Vec<Split>,
) -> Vec<Split> {
    if readers < 2 {
        return splits;
    }
    // each split's pieces, cut once (`None`: it stays whole)
    let pieces: Vec<Option<Vec<Split>>> = splits
        .iter()
        .map(|split| Some(pieces_of(split, readers)).filter(|p| p.len() > 1))
        .collect();
    let cuttable: Vec<usize> = (0..splits.len()).filter(|&i| pieces[i].is_some()).collect();
    // the reading costs in plan order when the last `tail` cuttable splits are cut
    let costs_with = |tail: usize| -> Vec<f64> {
        let first_cut = cuttable
            .get(cuttable.len() - tail)
            .copied()
            .unwrap_or(usize::MAX);
        splits
            .iter()
            .zip(&pieces)
            .enumerate()
            .flat_map(|(i, (split, cut))| match cut {
                Some(cut) if i >= first_cut => cut
                    .iter()
                    .map(|piece| rows(piece) * (1.0 + PIECE_OVERHEAD))
                    .collect(),
                _ => vec![rows(split)],
            })
            .collect()
    };
    let mut best = (finish(&costs_with(0), readers), 0);
    for tail in 1..=cuttable.len() {
        let time = finish(&costs_with(tail), readers);
        if time < best.0 {
            best = (time, tail);
        }
    }
    let first_cut = cuttable
        .get(cuttable.len() - best.1)
        .copied()
        .unwrap_or(usize::MAX);
    splits
        .into_iter()
        .zip(pieces)
        .enumerate()
        .flat_map(|(i, (split, cut))| match cut {
            Some(cut) if i >= first_cut => cut,
            _ => vec![split],
        })
        .collect()
}

/// The rows a split reads (a piece's range, or its files' row counts).
fn rows(split: &Split) -> f64 {
    match &split.rows {
        Some(range) => range.end.saturating_sub(range.start) as f64,
        None => split.row_count() as f64,
    }
}

/// When the last of `readers` readers is done with splits costing `costs` (in plan order) if
/// each claims the next split as soon as it is free.
fn finish(costs: &[f64], readers: usize) -> f64 {
    let mut free_at = vec![0f64; readers];
    for cost in costs {
        if let Some(first_free) = free_at.iter_mut().min_by(|a, b| a.total_cmp(b)) {
            *first_free += cost;
        }
    }
    free_at.into_iter().fold(0f64, f64::max)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::manifest::DataFileMeta;

    /// A split of one file of `rows` rows.
    fn split(rows: i64) -> Split {
        Split {
            partition: vec![],
            partition_bytes: vec![],
            bucket: 0,
            total_buckets: None,
            files: vec![std::sync::Arc::new(DataFileMeta {
                file_name: format!("data-{rows}.parquet"),
                row_count: rows,
                ..DataFileMeta::default()
            })],
            deletion_files: Default::default(),
            rows: None,
        }
    }

    /// Cut into `pieces` ranges of consecutive rows.
    fn cut(split: &Split, pieces: usize) -> Vec<Split> {
        split.cut_rows(pieces, 1)
    }

    fn ranges(splits: &[Split]) -> Vec<Option<(u64, u64)>> {
        splits
            .iter()
            .map(|s| s.rows.as_ref().map(|r| (r.start, r.end)))
            .collect()
    }

    #[test]
    fn only_the_files_that_would_leave_a_reader_idle_are_cut() {
        // 5 equal files, 2 readers: the first 4 whole, the last in halves (2.5 files each)
        let five: Vec<Split> = (0..5).map(|_| split(1000)).collect();
        assert_eq!(
            ranges(&cut_for_readers(five, 2, cut)),
            vec![None, None, None, None, Some((0, 500)), Some((500, 1000))]
        );
        // 2 equal files, 2 readers: already even, nothing cut
        let two: Vec<Split> = (0..2).map(|_| split(1000)).collect();
        assert_eq!(
            ranges(&cut_for_readers(two.clone(), 2, cut)),
            vec![None, None]
        );
        // ... 3 readers: both in thirds (two thirds of a file each, with the pieces' overhead,
        // finish before one whole file); cutting only the second would not
        assert_eq!(cut_for_readers(two, 3, cut).len(), 6);
        // one file, 3 readers: thirds
        assert_eq!(
            ranges(&cut_for_readers(vec![split(900)], 3, cut)),
            vec![Some((0, 300)), Some((300, 600)), Some((600, 900))]
        );
        // one reader: nothing cut
        assert_eq!(
            ranges(&cut_for_readers(vec![split(900)], 1, cut)),
            vec![None]
        );
    }

    #[test]
    fn files_that_cannot_be_cut_stay_whole_and_in_order() {
        let splits = vec![split(1000), split(2000), split(3000)];
        let whole = |s: &Split, _: usize| vec![s.clone()];
        assert_eq!(
            cut_for_readers(splits.clone(), 2, whole),
            splits,
            "nothing cuttable"
        );
        // only the 1,000-row file may be cut
        let small_only = |s: &Split, n: usize| {
            if s.row_count() == 1000 {
                s.cut_rows(n, 1)
            } else {
                vec![s.clone()]
            }
        };
        let big_first = vec![split(3000), split(2000), split(1000)];
        assert_eq!(
            cut_for_readers(big_first.clone(), 2, small_only),
            big_first,
            "3,000 | 2,000 + 1,000 is even already"
        );
        // 2,000 | 2,000: the last file is cut, in its place
        let shared = cut_for_readers(vec![split(2000), split(2000), split(1000)], 2, small_only);
        assert_eq!(
            ranges(&shared),
            vec![None, None, Some((0, 500)), Some((500, 1000))]
        );
        assert_eq!(
            shared.iter().map(Split::row_count).collect::<Vec<_>>(),
            vec![2000, 2000, 1000, 1000]
        );
    }
}
