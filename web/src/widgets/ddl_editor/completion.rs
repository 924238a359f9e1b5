//! The DDL editor's completion list: the suggestions at the cursor, shown under the replaced
//! word, chosen with the arrow keys, Enter/Tab or the mouse.

use lakescope_engine::sql_editor::{Completion, SuggestionKind};
use leptos::prelude::*;

/// An open completion list: its suggestions and the chosen one.
#[derive(Clone, Default)]
pub struct Open {
    pub completion: Completion,
    pub chosen: usize,
    /// Where the list is shown: (line, column) of the replaced word.
    pub at: (usize, usize),
}

/// (line, column) from 0 of a character offset.
pub fn line_column(text: &str, at: usize) -> (usize, usize) {
    let before: Vec<char> = text.chars().take(at).collect();
    let line = before.iter().filter(|c| **c == '\n').count();
    let column = before.iter().rev().take_while(|c| **c != '\n').count();
    (line, column)
}

/// Moves through, takes (`accept` the chosen suggestion) or closes the `open` list on the keys
/// that do so; other keys go to the textarea.
pub fn list_key(open: RwSignal<Option<Open>>, ev: &web_sys::KeyboardEvent, accept: impl Fn(usize)) {
    let Some(o) = open.get_untracked() else {
        return;
    };
    let n = o.completion.items.len();
    match ev.key().as_str() {
        "ArrowDown" => {
            ev.prevent_default();
            open.update(|o| {
                if let Some(o) = o {
                    o.chosen = (o.chosen + 1) % n;
                }
            });
        }
        "ArrowUp" => {
            ev.prevent_default();
            open.update(|o| {
                if let Some(o) = o {
                    o.chosen = (o.chosen + n - 1) % n;
                }
            });
        }
        "Enter" | "Tab" => {
            ev.prevent_default();
            accept(o.chosen);
        }
        "Escape" => {
            ev.prevent_default();
            open.set(None);
        }
        _ => {}
    }
}

/// The `open` list, placed at its word with the textarea's `scroll` (top, left) taken off; a
/// click on a suggestion `accept`s it.
#[component]
pub fn CompletionList(
    open: RwSignal<Option<Open>>,
    scroll: RwSignal<(i32, i32)>,
    accept: impl Fn(usize) + Copy + Send + Sync + 'static,
) -> impl IntoView {
    move || {
        open.get().map(|o| {
            let (line, column) = o.at;
            let (top, left) = scroll.get();
            // Set through the CSSOM (`style:`): the page's CSP refuses style attributes.
            let top = format!(
                "calc({} * var(--ddl-line) + var(--ddl-pad) - {top}px)",
                line + 1
            );
            let left = format!("calc({column}ch + var(--ddl-pad) - {left}px)");
            let items = o
                .completion
                .items
                .iter()
                .enumerate()
                .map(|(n, s)| {
                    let kind = match s.kind {
                        SuggestionKind::Column => "column",
                        SuggestionKind::Option => "option",
                        SuggestionKind::Keyword => "keyword",
                    };
                    let doc = s.doc.map(|d| view! { <span class="cmp-doc" data-testid="completion-doc">{d}</span> });
                    view! {
                        <li
                            role="option"
                            class="cmp-item"
                            class:chosen=n == o.chosen
                            aria-selected=(n == o.chosen).to_string()
                            data-testid="completion-item"
                            data-kind=kind
                            on:mousedown=move |ev| {
                                ev.prevent_default();
                                accept(n);
                            }
                        >
                            <span class=format!("cmp-kind cmp-{kind}")>{kind}</span>
                            <span class="cmp-text">{s.insert.clone()}</span>
                            {doc}
                        </li>
                    }
                })
                .collect_view();
            view! {
                <ul class="cmp-list" role="listbox" data-testid="completion" style:top=top style:left=left>{items}</ul>
            }
        })
    }
}
