// Starts the wasm app. Trunk's default loader is an inline script, which the page's
// Content-Security-Policy forbids: Trunk.toml's pattern_script writes the app's hashed JS and
// wasm names into <meta name="lakescope-app"> instead, and this (module, so deferred) script
// loads them.
const app = document.querySelector('meta[name="lakescope-app"]');

// A link to a warehouse on a web host: while the app downloads and compiles, its listing index
// is requested now and, for a linked Paimon table, what the app reads first (the latest schema,
// the LATEST hint, the newest listed snapshot with the probe past it, then that snapshot's
// manifest lists). The responses wait in `lakescopeEarlyFetches` (absolute URL → promise),
// where the app's HTTP store takes each once instead of sending the request
// (crates/storage/src/http.rs). A malformed URL is left to the app, which says what is wrong.
const params = new URLSearchParams(location.search);
const warehouse = params.get("warehouse")?.trim();
const base = warehouse && (!warehouse.includes("://") || /^https?:\/\//i.test(warehouse))
  && URL.canParse(warehouse, location.href) && new URL(warehouse, location.href).href.replace(/\/?$/, "/");
if (base) {
  const early = (globalThis.lakescopeEarlyFetches = new Map());
  const get = (path) => {
    const url = base + path;
    if (!early.has(url)) {
      const response = fetch(url, { priority: "high" });
      response.catch(() => {});  // a failed head start is the app's to retry and report
      early.set(url, response);
    }
    return early.get(url);
  };
  // null for a missing file or one that is not JSON (an SPA host's fallback page): the app
  // reports those itself, from its own read of the response.
  const json = (path) => get(path).then((r) => (r.ok ? r.clone().json().catch(() => null) : null), () => null);
  // Whether the app has not taken `path`'s response yet: once it has, it reads what follows
  // by itself (a request sent here too would be a second one), so the head start stops.
  const untaken = (path) => early.has(base + path);
  // Whether the app's object cache holds `path` from an earlier visit (its key as
  // crates/storage/src/persistent.rs:PersistentCache makes it): the app reads it from there.
  const kept = (path) => globalThis.caches?.match(
    `${location.origin}/.lakescope-object-cache/${encodeURIComponent(base)}/${path}`,
    { cacheName: "lakescope-objects-v1" }).then(Boolean, () => false) ?? false;
  const table = /^([\w$=-]+)\.([\w$=.-]+)$/.exec(params.get("table")?.trim() ?? "");
  const index = json("_lakescope_index.json");
  if (table) {
    // Paimon's warehouse layout; an Iceberg table lists none of these files and is skipped.
    const dir = `${table[1]}.db/${table[2]}`;
    index.then(async (listing) => {
      if (!untaken("_lakescope_index.json")) return;
      const files = new Set((listing?.files ?? []).map((f) => f.path));
      const newest = (prefix) => Math.max(-1, ...[...files].filter((p) => p.startsWith(prefix))
        .map((p) => Number(p.slice(prefix.length))).filter(Number.isInteger));
      const schema = newest(`${dir}/schema/schema-`);
      const snapshot = newest(`${dir}/snapshot/snapshot-`);
      if (schema < 0 || snapshot < 0) return;
      get(`${dir}/schema/schema-${schema}`);
      if (files.has(`${dir}/snapshot/LATEST`)) get(`${dir}/snapshot/LATEST`);
      get(`${dir}/snapshot/snapshot-${snapshot + 1}`);
      const newestSnapshot = await json(`${dir}/snapshot/snapshot-${snapshot}`);
      if (!untaken(`${dir}/snapshot/snapshot-${snapshot}`)) return;
      for (const list of [newestSnapshot?.baseManifestList, newestSnapshot?.deltaManifestList]) {
        const path = `${dir}/manifest/${list}`;
        if (typeof list === "string" && files.has(path) && !(await kept(path))) get(path);
      }
    }).catch(() => {});  // only a head start: the app reads (and reports) for itself
  }
}

const { default: init } = await import(app.dataset.js);
await init({ module_or_path: app.dataset.wasm });
