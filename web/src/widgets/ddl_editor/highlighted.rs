//! The DDL editor's highlighted copy of its text, drawn under the transparent textarea, with the
//! error's token underlined.

use lakescope_engine::sql_editor::highlight;
use leptos::html::Pre;
use leptos::prelude::*;

/// `text` as highlighted spans; `error` (character offset, message) marks its token, or the
/// end when the error is past the last token.
#[component]
pub fn Highlighted(
    text: RwSignal<String>,
    error: Signal<Option<(usize, String)>>,
    pre: NodeRef<Pre>,
) -> impl IntoView {
    let segments = move || {
        let t = text.get();
        let err = error.get();
        let at = err.as_ref().map(|(at, _)| *at);
        let title = err.map(|(_, m)| m).unwrap_or_default();
        let segs = highlight(&t, at);
        let marked = segs.iter().any(|s| s.error);
        let mut views: Vec<AnyView> = segs
            .into_iter()
            .map(|s| {
                let class = if s.error {
                    format!("{} tk-err", s.class)
                } else {
                    s.class.to_string()
                };
                let title = s.error.then(|| title.clone());
                let testid = s.error.then_some("ddl-error-mark");
                view! { <span class=class title=title data-testid=testid>{s.text}</span> }
                    .into_any()
            })
            .collect();
        if at.is_some() && !marked {
            // The error is past the last token (an unfinished statement): mark the end.
            views.push(
                view! { <span class="tk-err tk-eof" title=title data-testid="ddl-error-mark">" "</span> }
                    .into_any(),
            );
        }
        if t.ends_with('\n') || t.is_empty() {
            views.push(view! { <span>" "</span> }.into_any());
        }
        views
    };
    view! { <pre class="ddl-hl" aria-hidden="true" node_ref=pre data-testid="ddl-highlight">{segments}</pre> }
}
