//! The Data tab's version picker: latest, a branch (and its own snapshots and tags), a tag, a
//! snapshot or a time, with its text field for the time; the choice is the route's `at`.

use crate::state::route::{go, use_route};
use crate::state::versions::{branch_label, branch_options, BranchVersions};
use crate::util::{parse_time, time};
use lakescope_engine::version::BranchPoint;
use lakescope_engine::versions::Versions;
use lakescope_engine::Version;
use leptos::prelude::*;

/// The time of a read at a time, on `main` or on a branch's own snapshots.
fn at_time(at: &Version) -> Option<i64> {
    match at {
        Version::TimestampMillis(ms)
        | Version::OnBranch {
            at: BranchPoint::TimestampMillis(ms),
            ..
        } => Some(*ms),
        _ => None,
    }
}

/// The version picker's value of `at`: `latest`, `s:<id>`, `t:<tag>`, `b:<branch>`, a
/// branch's own `b:<branch>/s:<id>`, `b:<branch>/t:<tag>` or `b:<branch>/ts` (a branch name
/// has no `/`), `ts`
/// (the route holds no bare ref or range: they have no URL form).
fn picker_value(at: &Version) -> String {
    match at {
        Version::SnapshotId(id) => format!("s:{id}"),
        Version::Tag(t) => format!("t:{t}"),
        Version::Branch(b) => format!("b:{b}"),
        Version::OnBranch { branch, at } => match at {
            BranchPoint::SnapshotId(id) => format!("b:{branch}/s:{id}"),
            BranchPoint::Tag(t) => format!("b:{branch}/t:{t}"),
            BranchPoint::TimestampMillis(_) => format!("b:{branch}/ts"),
        },
        Version::TimestampMillis(_) => "ts".to_string(),
        Version::Latest | Version::Ref(_) | Version::IncrementalBetween { .. } => {
            "latest".to_string()
        }
    }
}

/// The version of a picker value other than `ts` ([`picker_value`]); `None`: `latest` or not a
/// value of the picker.
fn picked(value: &str) -> Option<Version> {
    if let Some(id) = value.strip_prefix("s:") {
        return id.parse().ok().map(Version::SnapshotId);
    }
    if let Some(t) = value.strip_prefix("t:") {
        return Some(Version::Tag(t.to_string()));
    }
    let branch = value.strip_prefix("b:")?;
    match branch.split_once('/') {
        Some((branch, at)) => Version::on_branch(branch, picked(at)?).ok(),
        None => Some(Version::Branch(branch.to_string())),
    }
}

/// The picker over the table's `versions` and the `own` versions of the branches read; a time
/// that does not parse is reported in `ts_error`.
#[component]
pub fn VersionPicker(
    versions: RwSignal<Versions, LocalStorage>,
    own: BranchVersions,
    ts_error: RwSignal<Option<String>>,
) -> impl IntoView {
    let route = use_route();
    let version_value = move || route.with(|r| picker_value(&r.at));
    let ts_text = RwSignal::new(at_time(&route.get_untracked().at).map_or(String::new(), time));
    let on_version = move |ev: leptos::ev::Event| {
        let v = event_target_value(&ev);
        let at = if v == "ts" {
            Version::TimestampMillis(
                versions.with_untracked(|v| v.snapshots.last().map_or(0, |s| s.1)),
            )
        } else if let Some(branch) = v.strip_prefix("b:").and_then(|b| b.strip_suffix("/ts")) {
            // the branch's latest own snapshot's time to start from
            let ms = own.with_untracked(|own| {
                own.iter()
                    .find(|(b, _)| b == branch)
                    .and_then(|(_, v)| v.snapshots.last().map(|s| s.1))
            });
            Version::on_branch(branch, Version::TimestampMillis(ms.unwrap_or(0)))
                .unwrap_or_default()
        } else {
            picked(&v).unwrap_or_default()
        };
        if let Some(ms) = at_time(&at) {
            ts_text.set(time(ms));
        }
        go(route, |r| r.at = at);
    };
    let apply_ts = move || match parse_time(&ts_text.get_untracked()) {
        Some(ms) => {
            ts_error.set(None);
            // a time on the branch read, resolved on its own snapshots
            go(route, |r| {
                r.at = match r.at.branch() {
                    Some(b) => Version::on_branch(b, Version::TimestampMillis(ms))
                        .unwrap_or(Version::TimestampMillis(ms)),
                    None => Version::TimestampMillis(ms),
                }
            });
        }
        None => ts_error.set(Some(
            "Enter a time like 2024-03-01 10:00:00 (UTC) or epoch milliseconds.".into(),
        )),
    };
    view! {
        <label class="tb-label" for="version">"Version"</label>
        <select id="version" class="select" data-testid="version-select" prop:value=version_value on:change=on_version>
            <option value="latest">"latest"</option>
            {move || versions.with(|Versions { snapshots: snaps, tags, branches }| {
                let cur = version_value();
                let mut opts: Vec<_> = branches.iter().map(|(n, head)| {
                    let v = format!("b:{n}");
                    view! { <option value=v.clone() selected=cur == v>{branch_label(n, *head)}</option> }.into_any()
                }).collect();
                // the chosen branch's own tags and snapshots
                opts.extend(own.with(|own| own.iter()
                    .find(|(b, _)| route.with(|r| r.at.branch() == Some(b.as_str())))
                    .map(|(b, v)| {
                        let mut opts = branch_options(b, v, picker_value, &cur);
                        let time_value = format!("b:{b}/ts");
                        opts.push(view! { <option value=time_value.clone() selected=cur == time_value>{format!("{b} · at a time…")}</option> }.into_any());
                        opts
                    }))
                    .unwrap_or_default());
                opts.extend(tags.iter().map(|(n, id)| {
                    let v = format!("t:{n}");
                    view! { <option value=v.clone() selected=cur == v>{format!("tag {n} (snapshot {id})")}</option> }.into_any()
                }));
                opts.extend(snaps.iter().rev().map(|&(id, millis)| {
                    let v = format!("s:{id}");
                    view! { <option value=v.clone() selected=cur == v>{format!("snapshot {id} · {}", time(millis))}</option> }.into_any()
                }));
                opts.push(view! { <option value="ts" selected=cur == "ts">"at a time…"</option> }.into_any());
                opts.collect_view()
            })}
        </select>
        <Show when=move || route.with(|r| at_time(&r.at).is_some())>
            <input class="input ts" data-testid="ts-input" type="text" spellcheck="false"
                placeholder="2024-03-01 10:00:00" bind:value=ts_text
                on:keydown=move |ev| if ev.key() == "Enter" { apply_ts() } />
            <button class="btn" on:click=move |_| apply_ts()>"Go"</button>
        </Show>
    }
}
