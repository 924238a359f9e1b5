//! Column statistics of a data file (`metadata.stats-mode`, `fields.<f>.stats-mode`) as `SimpleStats`.

use super::binary_row::serialize;
use super::datum::{datum_at, has_stats};
use crate::error::{Error, Result};
use crate::spec::binary_row::Datum;
use crate::spec::manifest::SimpleStats;
use crate::spec::options::CoreOptions;
use crate::spec::types::{DataField, DataType, TypeKind};
use arrow_array::ArrayRef;
use std::cmp::Ordering;

/// How much statistics a column keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StatsMode {
    /// No statistics at all.
    None,
    /// Null counts only.
    Counts,
    /// Min/max with strings cut to this many characters.
    Truncate(usize),
    /// Exact min/max.
    Full,
}

impl StatsMode {
    /// Parses `none`, `counts`, `full`, `truncate(N)`.
    pub fn parse(text: &str) -> Result<Self> {
        let t = text.trim().to_ascii_lowercase();
        match t.as_str() {
            "none" => Ok(Self::None),
            "counts" => Ok(Self::Counts),
            "full" => Ok(Self::Full),
            _ => t
                .strip_prefix("truncate(")
                .and_then(|r| r.strip_suffix(')'))
                .and_then(|n| n.trim().parse().ok())
                .map(Self::Truncate)
                .ok_or_else(|| {
                    Error::Invalid(format!(
                        "invalid stats mode '{text}': expected none, counts, full or truncate(N)"
                    ))
                }),
        }
    }

    /// The mode of `field`: `fields.<f>.stats-mode`, else `metadata.stats-mode`, else truncate(16).
    pub fn for_field(options: &CoreOptions, field: &str) -> Result<Self> {
        match options
            .field_option(field, "stats-mode")
            .or_else(|| options.get("metadata.stats-mode"))
        {
            Some(v) => Self::parse(v),
            None => Ok(Self::Truncate(16)),
        }
    }
}

/// Min of a string cut to `n` characters: its prefix.
fn truncate_min(s: &str, n: usize) -> String {
    s.chars().take(n).collect()
}

/// Max of a string cut to `n` characters: the prefix with its last incrementable character
/// incremented (so it stays ≥ every value), or `None` when impossible.
fn truncate_max(s: &str, n: usize) -> Option<String> {
    if s.chars().count() <= n {
        return Some(s.to_string());
    }
    let mut chars: Vec<char> = s.chars().take(n).collect();
    while let Some(last) = chars.pop() {
        let mut next = u32::from(last) + 1;
        if (0xD800..0xE000).contains(&next) {
            next = 0xE000;
        }
        if let Some(c) = char::from_u32(next) {
            chars.push(c);
            return Some(chars.into_iter().collect());
        }
    }
    None
}

/// Statistics of `columns` (one array per field, same length), encoded as Paimon stores them.
pub fn collect(
    fields: &[DataField],
    columns: &[ArrayRef],
    options: &CoreOptions,
) -> Result<SimpleStats> {
    let mut mins = Vec::with_capacity(fields.len());
    let mut maxs = Vec::with_capacity(fields.len());
    let mut nulls = Vec::with_capacity(fields.len());
    for (field, array) in fields.iter().zip(columns) {
        let mode = StatsMode::for_field(options, &field.name)?;
        let (min, max, null_count) = column(array, &field.data_type, mode)?;
        mins.push(min);
        maxs.push(max);
        nulls.push(null_count);
    }
    let types: Vec<DataType> = fields.iter().map(|f| f.data_type.clone()).collect();
    Ok(SimpleStats {
        min_values: serialize(&mins, &types)?,
        max_values: serialize(&maxs, &types)?,
        null_counts: nulls,
    })
}

fn column(array: &ArrayRef, t: &DataType, mode: StatsMode) -> Result<(Datum, Datum, Option<i64>)> {
    if mode == StatsMode::None {
        return Ok((Datum::Null, Datum::Null, None));
    }
    let null_count = Some(array.null_count() as i64);
    if mode == StatsMode::Counts || !has_stats(t) {
        return Ok((Datum::Null, Datum::Null, null_count));
    }
    let mut min = Datum::Null;
    let mut max = Datum::Null;
    for row in 0..array.len() {
        let v = datum_at(array.as_ref(), row, t)?;
        if v.is_null()
            || matches!(v, Datum::Float(f) if f.is_nan())
            || matches!(v, Datum::Double(f) if f.is_nan())
        {
            continue;
        }
        if min.is_null() || v.total_cmp(&min) == Ordering::Less {
            min = v.clone();
        }
        if max.is_null() || v.total_cmp(&max) == Ordering::Greater {
            max = v;
        }
    }
    if let (StatsMode::Truncate(n), TypeKind::Char(_) | TypeKind::VarChar(_)) = (mode, &t.kind) {
        if let Datum::String(s) = &min {
            min = Datum::String(truncate_min(s, n));
        }
        if let Datum::String(s) = &max {
            max = truncate_max(s, n).map_or(Datum::Null, Datum::String);
        }
    }
    Ok((min, max, null_count))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_modes_and_truncates() {
        assert_eq!(
            StatsMode::parse("truncate(16)").unwrap(),
            StatsMode::Truncate(16)
        );
        assert_eq!(StatsMode::parse("FULL").unwrap(), StatsMode::Full);
        assert!(StatsMode::parse("sometimes").is_err());
        assert_eq!(truncate_min("abcdef", 3), "abc");
        assert_eq!(truncate_max("abcdef", 3).as_deref(), Some("abd"));
        assert_eq!(truncate_max("ab", 3).as_deref(), Some("ab"));
    }
}
