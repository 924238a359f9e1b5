//! A DDL editor: a transparent textarea over its highlighted text (text nodes only), the error
//! underlined at its position, and completion (Ctrl+Space or while typing) in a keyboard list.

mod completion;
mod highlighted;

use completion::{line_column, list_key, CompletionList, Open};
use highlighted::Highlighted;
use lakescope_engine::sql_editor::complete;
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
        list_key(open, &ev, accept);
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
    view! {
        <div class="ddl-editor">
            <Highlighted text=text error=error pre=pre />
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
            <CompletionList open=open scroll=scroll accept=accept />
        </div>
    }
}
