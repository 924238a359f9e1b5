//! The page URL as application state: `?warehouse=…&table=db.t&tab=…&snapshot=…`.
//!
//! Every navigation pushes a history entry; back/forward (popstate) restore the route.

use lakescope_engine::Version;
use leptos::prelude::*;

/// The table page tabs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Tab {
    #[default]
    Overview,
    Schema,
    Snapshots,
    Data,
    Diff,
    Files,
    Sql,
    Ddl,
}

impl Tab {
    pub const ALL: [Tab; 8] = [
        Tab::Overview,
        Tab::Schema,
        Tab::Snapshots,
        Tab::Data,
        Tab::Diff,
        Tab::Files,
        Tab::Sql,
        Tab::Ddl,
    ];

    pub fn id(self) -> &'static str {
        match self {
            Tab::Overview => "overview",
            Tab::Schema => "schema",
            Tab::Snapshots => "snapshots",
            Tab::Data => "data",
            Tab::Diff => "diff",
            Tab::Files => "files",
            Tab::Sql => "sql",
            Tab::Ddl => "ddl",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Tab::Overview => "Overview",
            Tab::Schema => "Schema",
            Tab::Snapshots => "Snapshots",
            Tab::Data => "Data",
            Tab::Diff => "Diff",
            Tab::Files => "Files",
            Tab::Sql => "SQL",
            Tab::Ddl => "DDL",
        }
    }

    fn parse(s: &str) -> Tab {
        Tab::ALL
            .into_iter()
            .find(|t| t.id() == s)
            .unwrap_or_default()
    }
}

/// Everything the URL says.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Route {
    pub warehouse: Option<String>,
    /// `db.table`
    pub table: Option<String>,
    pub tab: Tab,
    /// Data tab: the version read (`snapshot=`, `tag=`, `branch=` or `ts=`; a branch's own
    /// snapshot or tag: `branch=` with `snapshot=` or `tag=`).
    pub at: Version,
    /// Data tab: filter text.
    pub filter: String,
    /// Data tab: projected columns (comma separated), empty = all.
    pub cols: String,
    /// Data tab: audit-log view.
    pub audit: bool,
    /// Schema tab: selected schema id.
    pub schema: Option<i64>,
    /// Diff tab: "from" and "to" (snapshot id, `tag:<name>`, `branch:<name>`, or a branch's own
    /// `branch:<name>/<id>`, `branch:<name>/tag:<tag>`).
    pub from: String,
    pub to: String,
}

impl Route {
    /// The route of the current page URL.
    pub fn from_location() -> Route {
        let search = web_sys::window()
            .and_then(|w| w.location().search().ok())
            .unwrap_or_default();
        let Ok(p) = web_sys::UrlSearchParams::new_with_str(&search) else {
            return Route::default();
        };
        let get = |k: &str| p.get(k).filter(|s| !s.trim().is_empty());
        let at = Version::from_url_query(get);
        Route {
            warehouse: get("warehouse"),
            table: get("table"),
            tab: get("tab").map(|t| Tab::parse(&t)).unwrap_or_default(),
            at,
            filter: get("filter").unwrap_or_default(),
            cols: get("cols").unwrap_or_default(),
            audit: get("audit").as_deref() == Some("1"),
            schema: get("schema").and_then(|s| s.parse().ok()),
            from: get("from").unwrap_or_default(),
            to: get("to").unwrap_or_default(),
        }
    }

    /// The page URL of this route (relative to the current page).
    pub fn href(&self) -> Option<String> {
        let window = web_sys::window()?;
        let url = web_sys::Url::new(&window.location().href().ok()?).ok()?;
        let p = web_sys::UrlSearchParams::new().ok()?;
        if let Some(w) = &self.warehouse {
            p.append("warehouse", w);
        }
        if let Some(t) = &self.table {
            p.append("table", t);
            if self.tab != Tab::Overview {
                p.append("tab", self.tab.id());
            }
            // A route holds only versions with a URL form: no URL rather than a wrong one.
            for (k, v) in self.at.url_query().ok()? {
                p.append(k, &v);
            }
            for (k, v) in [
                ("filter", &self.filter),
                ("cols", &self.cols),
                ("from", &self.from),
                ("to", &self.to),
            ] {
                if !v.is_empty() {
                    p.append(k, v);
                }
            }
            if self.audit {
                p.append("audit", "1");
            }
            if let Some(s) = self.schema {
                p.append("schema", &s.to_string());
            }
        } else if self.tab == Tab::Sql {
            // The warehouse's SQL console (no table).
            p.append("tab", self.tab.id());
        }
        url.set_search(&String::from(p.to_string()));
        Some(url.href())
    }
}

/// The app-wide route signal (provided by the app shell).
pub fn use_route() -> RwSignal<Route> {
    expect_context::<RwSignal<Route>>()
}

/// Navigates: updates the route and pushes (or replaces) a history entry.
pub fn navigate(route: RwSignal<Route>, next: Route, replace: bool) {
    if route.with_untracked(|r| r == &next) {
        return;
    }
    if let (Some(href), Some(window)) = (next.href(), web_sys::window()) {
        if let Ok(history) = window.history() {
            let null = wasm_bindgen::JsValue::NULL;
            // Failing to update the address bar is harmless: the view itself is right.
            let _ = if replace {
                history.replace_state_with_url(&null, "", Some(&href))
            } else {
                history.push_state_with_url(&null, "", Some(&href))
            };
        }
    }
    route.set(next);
}

/// Changes the route with `f` and pushes a history entry.
pub fn go(route: RwSignal<Route>, f: impl FnOnce(&mut Route)) {
    let mut next = route.get_untracked();
    f(&mut next);
    navigate(route, next, false);
}

/// Like [`go`], but replaces the current history entry (typing in inputs).
pub fn go_replace(route: RwSignal<Route>, f: impl FnOnce(&mut Route)) {
    let mut next = route.get_untracked();
    f(&mut next);
    navigate(route, next, true);
}
