// A worker of the browser benchmark's scan pool (P8): an instance of the bench wasm module the page sends it, planning
// the snapshot the page planned and reading the splits it is handed one ticket at a time.
let wasm = null;

self.onmessage = async ({ data }) => {
  try {
    if (data.op === "init") {
      wasm = await import(data.glue);
      await wasm.default({ module_or_path: data.module });
      self.postMessage({ ok: true });
    } else if (data.op === "plan") {
      self.postMessage({ ok: true, out: JSON.parse(await wasm.planShares(data.warehouse, data.table, data.snapshot, data.readers)) });
    } else if (data.op === "touch") {
      self.postMessage({ ok: true, out: JSON.parse(await wasm.touchShare(JSON.stringify(data.ticket))) });
    } else {
      self.postMessage({ ok: false, error: `unknown request ${data.op}` });
    }
  } catch (e) {
    self.postMessage({ ok: false, error: String(e?.message ?? e) });
  }
};
