// Reads a `run.mjs --chrome-trace` file: the page's main-thread work between the click and the first rows
// (tasks of at least MIN ms, what they did), V8's wasm compiling on that thread, and when requests left and returned.
//   node tests/bench-browser/timeline.mjs TRACE.json [MIN_MS]
import fs from "node:fs";

const [file, min = "4"] = process.argv.slice(2);
const trace = JSON.parse(fs.readFileSync(file, "utf8"));
const events = trace.traceEvents;
const mark = events.find((e) => e.name === "lakescope-trace-mark");
if (!mark || !trace.lakescope) throw new Error(`${file}: not a trace written by run.mjs --chrome-trace`);
const shift = mark.ts / 1000 - trace.lakescope.mark;  // trace ms = performance.now() + shift
const [click, first] = [trace.lakescope.click + shift, trace.lakescope.firstRows + shift];
const main = events.find((e) => e.name === "thread_name" && e.args?.name === "CrRendererMain" && e.pid === mark.pid);
const onMain = events.filter((e) => e.pid === main.pid && e.tid === main.tid && e.ph === "X" && e.dur);
const at = (e) => e.ts / 1000 - click;
const within = (e) => at(e) >= 0 && e.ts / 1000 <= first;
const ms = (x) => x.toFixed(1).padStart(7);

console.log(`click to first rows: ${(first - click).toFixed(0)} ms`);
// Tasks, and microtask checkpoints run outside any task (after a response, say).
const tasks = onMain.filter((e) => e.name === "ThreadControllerImpl::RunTask");
const inTask = (e) => tasks.some((t) => t !== e && e.ts >= t.ts && e.ts < t.ts + t.dur);
const work = onMain.filter((e) => e.name === "ThreadControllerImpl::RunTask"
  || (e.name === "BlinkScheduler_PerformMicrotaskCheckpoint" && !inTask(e)));
for (const task of work.filter((e) => within(e) && e.dur / 1000 >= Number(min)).sort((a, b) => a.ts - b.ts)) {
  const end = task.ts + task.dur;
  const parts = onMain.filter((e) => e !== task && e.ts >= task.ts && e.ts + e.dur <= end && e.dur >= 300 && !e.name.endsWith("RunTask") && !e.name.endsWith("MicrotaskCheckpoint"));
  console.log(`${ms(at(task))} ${ms(task.dur / 1000)}  ${parts.slice(0, 10).map((e) => `${e.name}${e.args?.data?.type ? ":" + e.args.data.type : ""} ${(e.dur / 1000).toFixed(1)}`).join(" | ")}`);
}
const total = (name) => onMain.filter((e) => e.name === name && within(e)).reduce((sum, e) => sum + e.dur / 1000, 0);
console.log(`wasm compiled on first call (wasm.CompileLazy): ${total("wasm.CompileLazy").toFixed(1)} ms; memory grown: ${total("wasm.GrowMemory").toFixed(1)} ms`);
const request = (name) => events.filter((e) => e.name === name && within(e)).map((e) => `${at(e).toFixed(0)} ${(e.args.data.url ?? "").split("/").pop().slice(0, 24)}`);
console.log(`sent: ${request("ResourceSendRequest").join(" · ")}`);
console.log(`finished: ${events.filter((e) => e.name === "ResourceFinish" && within(e)).map((e) => at(e).toFixed(0)).join(" ")}`);
