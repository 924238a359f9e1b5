//! The grid's head: the column layout (widths from the header and the first rows' values) and
//! the header cells with each column's name and type.

use crate::util::Frame;
use leptos::prelude::*;
use std::sync::Arc;

/// Rows whose text sizes the columns: about the first screen and a half.
const WIDTH_SAMPLE_ROWS: usize = 64;

/// Width in px of each column, from the header and the first rows' values.
fn column_widths(f: &Frame) -> Vec<usize> {
    let sample = f.len().min(WIDTH_SAMPLE_ROWS);
    f.columns()
        .iter()
        .enumerate()
        .map(|(c, name)| {
            let mut w = name.chars().count() + 2;
            for r in 0..sample {
                w = w.max(f.cell(r, c).map_or(4, |s| s.chars().count()));
            }
            w.clamp(4, 48) * 8 + 20
        })
        .collect()
}

/// The grid's column template (`56px` for the row numbers, then each column) and total width
/// in px, for `frame`.
pub fn column_layout(f: &Frame) -> (String, usize) {
    let widths = column_widths(f);
    let template = std::iter::once("56px".to_string())
        .chain(widths.iter().map(|w| format!("{w}px")))
        .collect::<Vec<_>>()
        .join(" ");
    let total: usize = 56 + widths.iter().sum::<usize>();
    (template, total)
}

/// The header row of `frame`'s columns (name, and type in the title), `width` px wide.
#[component]
pub fn GridHeader(
    frame: Signal<Option<Arc<Frame>>>,
    width: impl Fn() -> String + Send + Sync + 'static,
) -> impl IntoView {
    let header = move || {
        frame.with(|f| {
            f.as_ref().map(|f| {
                f.schema
                    .fields()
                    .iter()
                    .map(|field| {
                        let ty = field.data_type().to_string();
                        view! {
                            <span class="gh" title=format!("{} {}", field.name(), ty)>
                                <span class="gh-name">{field.name().clone()}</span>
                            </span>
                        }
                    })
                    .collect_view()
            })
        })
    };
    view! {
        <div class="ghead" style:width=width>
            <span class="rn">"#"</span>
            {header}
        </div>
    }
}
