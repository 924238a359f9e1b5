// A worker of the Data tab's scan pool (web/src/workers/scan_pool/): an instance of the app's
// own wasm module, which the page compiled and posts here with its JS glue's URL (nothing is
// downloaded or compiled again). It reads one split of a shared read at a time and sends each
// batch on as bytes (transferred), then says the split is done; an error ends the split.
// In: {op: "init", glue, module} | {op: "read", read, warehouse, plan, ticket}.
// Out: {op: "ready"} | {op: "batch", read, split, bytes} | {op: "done", read, split}
//      | {op: "failed", read, split, error}.
let app = null;

self.onmessage = async ({ data }) => {
  if (data.op === "init") {
    try {
      app = await import(data.glue);
      await app.default({ module_or_path: data.module });
      self.postMessage({ op: "ready" });
    } catch (e) {
      self.postMessage({ op: "failed", read: null, split: null, error: String(e?.message ?? e) });
    }
    return;
  }
  const { read, ticket } = data;
  const split = JSON.parse(ticket).index;
  try {
    await app.scanPoolRead(data.warehouse, data.plan, ticket, (bytes) =>
      self.postMessage({ op: "batch", read, split, bytes }, [bytes.buffer]));
    self.postMessage({ op: "done", read, split });
  } catch (e) {
    self.postMessage({ op: "failed", read, split, error: String(e?.message ?? e) });
  }
};
