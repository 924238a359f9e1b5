//! A DDL editor: a transparent textarea over its highlighted text (text nodes only), the error
//! underlined at its position, and completion (Ctrl+Space or while typing) in a keyboard list.

use lakescope_engine::sql_editor::{complete, highlight, Completion, SuggestionKind};
use leptos::html::{Pre, Textarea};
use leptos::prelude::*;

/// The character offset of a UTF-16 offset (a textarea's selection) in `text`.
fn chars_of_utf16(text: &str, units: u32) -> usize {
    let mut seen = 0u32;
    let mut chars = 0;
    for c in text.chars() {
        if seen >= units {
            break;
        }
        seen += c.len_utf16() as u32;
        chars += 1;
    }
    chars
}

/// The UTF-16 offset of a character offset in `text`.
fn utf16_of_chars(text: &str, chars: usize) -> u32 {
    text.chars().take(chars).map(|c| c.len_utf16() as u32).sum()
}

/// (line, column) from 0 of a character offset.
fn line_column(text: &str, at: usize) -> (usize, usize) {
    let before: Vec<char> = text.chars().take(at).collect();
    let line = before.iter().filter(|c| **c == '\n').count();
    let column = before.iter().rev().take_while(|c| **c != '\n').count();
    (line, column)
}

/// An open completion list: its suggestions and the chosen one.
#[derive(Clone, Default)]
struct Open {
    completion: Completion,
    chosen: usize,
    /// Where the list is shown: (line, column) of the replaced word.
    at: (usize, usize),
}

/// The editor over `text`; `columns` feed completion; `error` is the character offset and
/// message of the current error.
#[component]
pub fn DdlEditor(
    text: RwSignal<String>,
    #[prop(into)] columns: Signal<Vec<String>>,
    #[prop(into)] error: Signal<Option<(usize, String)>>,
) -> impl IntoView {
    let area = NodeRef::<Textarea>::new();
    let pre = NodeRef::<Pre>::new();
    let open = RwSignal::new(None::<Open>);
    let scroll = RwSignal::new((0i32, 0i32));
    let cursor = move || {
        area.get_untracked()
            .and_then(|a| a.selection_start().ok().flatten())
            .map(|u| chars_of_utf16(&text.get_untracked(), u))
            .unwrap_or(0)
    };
    // Suggestions at the cursor; `always` opens an empty-prefix list (Ctrl+Space).
    let suggest = move |always: bool| {
        let t = text.get_untracked();
        let at = cursor();
        let c = columns.with_untracked(|cols| complete(&t, at, cols));
        let typed = c.from < at;
        open.set((!c.items.is_empty() && (always || typed)).then(|| Open {
            at: line_column(&t, c.from),
            completion: c,
            chosen: 0,
        }));
    };
    let accept = move |n: usize| {
        let Some(o) = open.get_untracked() else {
            return;
        };
        let Some(s) = o.completion.items.get(n) else {
            return;
        };
        let t = text.get_untracked();
        let at = cursor();
        let from = o.completion.from.min(at);
        let mut next: String = t.chars().take(from).collect();
        next.push_str(&s.insert);
        let caret = next.chars().count();
        next.extend(t.chars().skip(at));
        text.set(next.clone());
        open.set(None);
        if let Some(a) = area.get_untracked() {
            a.set_value(&next);
            let u = utf16_of_chars(&next, caret);
            let _ = a.set_selection_range(u, u);
            let _ = a.focus();
        }
    };
    let on_keydown = move |ev: web_sys::KeyboardEvent| {
        if ev.ctrl_key() && (ev.key() == " " || ev.code() == "Space") {
            ev.prevent_default();
            suggest(true);
            return;
        }
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
    };
    let on_input = move |ev: web_sys::Event| {
        let before = text.get_untracked().chars().count();
        let next = event_target_value(&ev);
        let grew = next.chars().count() > before;
        text.set(next);
        // Typing a word (not deleting, not a space) keeps the list up to date.
        let at = cursor();
        let typed = at
            .checked_sub(1)
            .and_then(|i| text.with_untracked(|t| t.chars().nth(i)));
        match typed {
            Some(c) if grew && (c.is_alphanumeric() || matches!(c, '_' | '.' | '\'' | '-')) => {
                suggest(c == '\'')
            }
            _ => open.set(None),
        }
    };
    let sync_scroll = move |_| {
        if let (Some(a), Some(p)) = (area.get_untracked(), pre.get_untracked()) {
            p.set_scroll_top(a.scroll_top());
            p.set_scroll_left(a.scroll_left());
            scroll.set((a.scroll_top(), a.scroll_left()));
        }
    };
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
    let list = move || {
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
    };
    view! {
        <div class="ddl-editor">
            <pre class="ddl-hl" aria-hidden="true" node_ref=pre data-testid="ddl-highlight">{segments}</pre>
            <textarea
                class="ddl-input"
                data-testid="ddl-input"
                spellcheck="false"
                wrap="off"
                aria-label="ALTER TABLE statement"
                node_ref=area
                prop:value=move || text.get()
                on:input=on_input
                on:keydown=on_keydown
                on:scroll=sync_scroll
                on:blur=move |_| open.set(None)
            ></textarea>
            {list}
        </div>
    }
}
