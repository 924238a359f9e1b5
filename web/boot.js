// Starts the wasm app. Trunk's default loader is an inline script, which the page's
// Content-Security-Policy forbids; Trunk.toml's pattern_script points here instead.
const boot = document.querySelector("script[data-lakescope-boot]");

// A link to a warehouse on a web host: its listing index is requested now, while the app
// downloads, as a preload that the app's own read of the index takes instead of a request.
// A malformed URL is left to the app, which says what is wrong with it.
const warehouse = new URLSearchParams(location.search).get("warehouse")?.trim();
const base = warehouse && (!warehouse.includes("://") || /^https?:\/\//i.test(warehouse))
  && URL.canParse(warehouse, location.href) && new URL(warehouse, location.href).href.replace(/\/?$/, "/");
if (base) {
  const link = Object.assign(document.createElement("link"),
    { rel: "preload", as: "fetch", crossOrigin: "anonymous", fetchPriority: "high", href: `${base}_lakescope_index.json` });
  document.head.append(link);
}

const { default: init } = await import(boot.dataset.js);
await init({ module_or_path: boot.dataset.wasm });
