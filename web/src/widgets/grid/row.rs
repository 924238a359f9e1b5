//! One row of the grid: its cells' text (or NULL), BLOB cells with their download button, and
//! the extra classes of diff highlighting.

use super::{BlobDownload, CellClass, ROW_H};
use crate::util::Frame;
use lakescope_engine::blob::BlobRef;
use leptos::prelude::*;

/// A BLOB cell: the value's size and a button fetching its bytes (a NULL BLOB is a NULL cell).
fn blob_cell(reference: Option<BlobRef>, extra: &str, download: Option<BlobDownload>) -> AnyView {
    let Some(reference) = reference else {
        return view! { <span class=format!("gc null {extra}")>"NULL"</span> }.into_any();
    };
    let size = format!("{} bytes", reference.length);
    let button = download.map(|download| {
        let title = format!("Download these {} bytes", reference.length);
        view! {
            <button class="btn small blob-dl" data-testid="blob-download" title=title
                on:click=move |_| download(reference.clone())>"download"</button>
        }
    });
    view! { <span class=format!("gc blob {extra}")><span data-testid="blob-size">{size}</span>" "{button}</span> }
        .into_any()
}

/// Row `r` of `f`, placed at its offset; `row_class`/`cell_class` add classes, `blob_download`
/// fetches a BLOB cell's bytes.
pub fn grid_row(
    f: &Frame,
    r: usize,
    row_class: Option<&CellClass>,
    cell_class: Option<&CellClass>,
    blob_download: Option<BlobDownload>,
) -> AnyView {
    let cols = f.schema.fields().len();
    let rc = row_class.map_or("", |rc| rc(f, r, 0));
    let cells = (0..cols)
        .map(|c| {
            let extra = cell_class.map_or("", |cc| cc(f, r, c));
            if let Some(reference) = f.blob(r, c) {
                return blob_cell(reference, extra, blob_download.clone());
            }
            match f.cell(r, c) {
                Some(text) => view! { <span class=format!("gc {extra}")>{text}</span> }.into_any(),
                None => view! { <span class=format!("gc null {extra}")>"NULL"</span> }.into_any(),
            }
        })
        .collect_view();
    view! {
        <div
            class=format!("grow {rc}")
            data-testid="grid-row"
            data-row=r
            style:top=format!("{}px", r as f64 * ROW_H)
        >
            <span class="rn">{r + 1}</span>
            {cells}
        </div>
    }
    .into_any()
}
