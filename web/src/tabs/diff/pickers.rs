//! The Diff tab's two version pickers (from, to): the empty table, branches and their own
//! snapshots and tags, tags and snapshots; the choices are the route's `from` and `to`.

use crate::state::route::{go, use_route};
use crate::state::versions::{branch_label, branch_options, BranchVersions};
use crate::util::time;
use lakescope_engine::versions::Versions;
use lakescope_engine::Version;
use leptos::prelude::*;

/// Which side of the diff a picker sets.
#[derive(Clone, Copy, PartialEq)]
pub enum Side {
    From,
    To,
}

/// The picker of `side` over the table's `versions` (nothing until they are read) and the `own`
/// versions of the branches named.
#[component]
pub fn DiffPicker(
    side: Side,
    versions: Signal<Option<Versions>>,
    own: BranchVersions,
) -> impl IntoView {
    let route = use_route();
    let which = match side {
        Side::From => "from",
        Side::To => "to",
    };
    move || {
        let Some(Versions {
            snapshots: snaps,
            tags,
            branches,
        }) = versions.get()
        else {
            return ().into_any();
        };
        let cur = route.with(|r| match side {
            Side::From => r.from.clone(),
            Side::To => r.to.clone(),
        });
        let mut opts = Vec::new();
        // a link's `latest` (the table's head when the tab opened) is shown as such
        if cur == "latest" {
            opts.push(
                view! { <option value="latest" selected=true>"latest snapshot"</option> }
                    .into_any(),
            );
        }
        if side == Side::From {
            opts.push(
                view! { <option value="0" selected=cur == "0">"(empty table)"</option> }.into_any(),
            );
        }
        for (n, head) in &branches {
            let v = format!("branch:{n}");
            opts.push(view! { <option value=v.clone() selected=cur == v>{branch_label(n, *head)}</option> }.into_any());
        }
        own.with(|own| {
            for (b, v) in own {
                let value = |at: &Version| at.typed_name().unwrap_or_default();
                opts.extend(branch_options(b, v, value, &cur));
            }
        });
        for (n, id) in &tags {
            let v = format!("tag:{n}");
            opts.push(view! { <option value=v.clone() selected=cur == v>{format!("tag {n} (snapshot {id})")}</option> }.into_any());
        }
        for (id, millis) in snaps.iter().rev() {
            let v = id.to_string();
            opts.push(view! { <option value=v.clone() selected=cur == v>{format!("snapshot {id} · {}", time(*millis))}</option> }.into_any());
        }
        view! {
            <select class="select" data-testid=format!("diff-{which}")
                on:change=move |ev| {
                    let v = event_target_value(&ev);
                    go(route, |r| match side { Side::From => r.from = v, Side::To => r.to = v });
                }>
                {opts}
            </select>
        }
        .into_any()
    }
}
