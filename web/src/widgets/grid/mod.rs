//! A virtualised data grid: only the rows in view (plus a margin) are in the DOM, so scrolling
//! through hundreds of thousands of rows stays smooth. Cell text is computed on demand from the
//! Arrow batches; values are always text nodes.

mod header;
mod row;

use crate::util::Frame;
use header::{column_layout, GridHeader};
use lakescope_engine::blob::BlobRef;
use leptos::html::Div;
use leptos::prelude::*;
use std::sync::Arc;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;

/// Row height in pixels (must match `.grow` in app.css).
const ROW_H: f64 = 24.0;
/// Rows rendered above and below the viewport.
const OVERSCAN: usize = 12;

/// Extra CSS class of a cell (diff highlighting): `(frame, row, col) -> class`.
pub type CellClass = Arc<dyn Fn(&Frame, usize, usize) -> &'static str + Send + Sync>;

/// Downloads one BLOB value (a BLOB cell's button): gets its reference, fetches the bytes.
pub type BlobDownload = Arc<dyn Fn(BlobRef) + Send + Sync>;

/// Keeps `viewport` at an element's client height while it lives (disconnects when dropped).
struct HeightObserver {
    observer: web_sys::ResizeObserver,
    _on_resize: Closure<dyn FnMut(js_sys::Array)>,
}

impl HeightObserver {
    /// `None` where the browser has no ResizeObserver: the height is then read on scroll.
    fn watch(el: &web_sys::HtmlDivElement, viewport: RwSignal<f64>) -> Option<Self> {
        let target = el.clone();
        let on_resize = Closure::<dyn FnMut(js_sys::Array)>::new(move |_| {
            let h = target.client_height() as f64;
            if h > 0.0 {
                viewport.try_set(h);
            }
        });
        let observer = web_sys::ResizeObserver::new(on_resize.as_ref().unchecked_ref()).ok()?;
        observer.observe(el);
        Some(Self {
            observer,
            _on_resize: on_resize,
        })
    }
}

impl Drop for HeightObserver {
    fn drop(&mut self) {
        self.observer.disconnect();
    }
}

/// Gives the cell under the pointer its whole value as a tooltip (cells are cut at their width),
/// on first hover rather than for every rendered cell.
fn show_full_value(ev: web_sys::MouseEvent) {
    let Some(cell) = ev
        .target()
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
    else {
        return;
    };
    if cell.class_list().contains("gc") && !cell.has_attribute("title") {
        let _ = cell.set_attribute("title", &cell.text_content().unwrap_or_default());
    }
}

#[component]
pub fn Grid(
    /// The rows; `None` while nothing is loaded.
    #[prop(into)]
    frame: Signal<Option<Arc<Frame>>>,
    /// Per-cell extra class.
    #[prop(optional)]
    cell_class: Option<CellClass>,
    /// Per-row extra class.
    #[prop(optional)]
    row_class: Option<CellClass>,
    /// `data-testid` of the grid.
    #[prop(default = "grid")]
    testid: &'static str,
    /// Extra CSS class (`short` grids are capped lower).
    #[prop(default = "")]
    class: &'static str,
    /// Fetches a BLOB cell's bytes when its button is clicked; without it BLOB cells show only
    /// their size.
    #[prop(optional)]
    blob_download: Option<BlobDownload>,
) -> impl IntoView {
    let node = NodeRef::<Div>::new();
    let scroll_top = RwSignal::new(0.0f64);
    let viewport = RwSignal::new(480.0f64);
    // The viewport height, from a ResizeObserver: read after the browser's layout (reading it
    // on mount would lay the new page out at once, before the grid's data requests go), and
    // again whenever the grid is resized.
    let observer = StoredValue::new_local(None::<HeightObserver>);
    Effect::new(move |_| {
        if let Some(el) = node.get() {
            observer.set_value(HeightObserver::watch(&el, viewport));
        }
    });
    let layout = Memo::new(move |_| frame.with(|f| f.as_ref().map(|f| column_layout(f))));
    // One column template for the header and every row: a CSS variable of the grid (set through
    // the CSSOM: the page's CSP allows no inline style attribute).
    Effect::new(move |_| {
        let template = layout.get().map(|l| l.0).unwrap_or_default();
        if let Some(el) = node.get() {
            let _ = web_sys::HtmlElement::style(&el).set_property("--grid-columns", &template);
        }
    });
    let width = move || format!("{}px", layout.get().map(|l| l.1).unwrap_or(0));
    let rows_len = move || frame.with(|f| f.as_ref().map_or(0, |f| f.len()));
    let range = move || {
        let n = rows_len();
        let top = (scroll_top.get() / ROW_H) as usize;
        let first = top.saturating_sub(OVERSCAN).min(n);
        let last = (top + (viewport.get() / ROW_H).ceil() as usize + OVERSCAN).min(n);
        let key = frame.with(|f| f.as_ref().map_or(0, |f| Arc::as_ptr(f) as usize));
        (first..last).map(move |r| (key, r)).collect::<Vec<_>>()
    };
    let cell_class = StoredValue::new(cell_class);
    let row_class = StoredValue::new(row_class);
    let blob_download = StoredValue::new(blob_download);
    let render_row = move |(_, r): (usize, usize)| {
        let Some(f) = frame.get_untracked() else {
            return ().into_any();
        };
        row_class.with_value(|rc| {
            cell_class.with_value(|cc| {
                row::grid_row(&f, r, rc.as_ref(), cc.as_ref(), blob_download.get_value())
            })
        })
    };
    view! {
        <div
            class=format!("grid {class}")
            data-testid=testid
            node_ref=node
            tabindex="0"
            on:scroll=move |_| {
                if let Some(el) = node.get_untracked() {
                    scroll_top.set(el.scroll_top() as f64);
                    viewport.set(el.client_height() as f64);
                }
            }
            on:mouseover=show_full_value
        >
            <GridHeader frame=frame width=width />
            <div
                class="gcanvas"
                style:height=move || format!("{}px", rows_len() as f64 * ROW_H)
                style:width=width
            >
                <For each=range key=|k| *k children=render_row />
            </div>
            {move || {
                (frame.with(|f| f.is_some()) && rows_len() == 0)
                    .then(|| view! { <p class="note grid-empty" data-testid="grid-empty">"No rows."</p> })
            }}
        </div>
    }
}
