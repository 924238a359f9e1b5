// Starts the wasm app. Trunk's default loader is an inline script, which the page's
// Content-Security-Policy forbids; Trunk.toml's pattern_script points here instead.
const boot = document.querySelector("script[data-lakescope-boot]");
const { default: init } = await import(boot.dataset.js);
await init({ module_or_path: boot.dataset.wasm });
