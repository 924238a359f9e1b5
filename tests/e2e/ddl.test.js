// End-to-end: the DDL tab. The table's CREATE TABLE equals the CLI's SHOW CREATE TABLE; the ALTER
// editor is validated live by the SQL engine (errors underlined at their position), completes
// column names and option keys (with their documentation), previews the next schema, and commits
// it on a writable warehouse (an OPFS copy of the demo lake) so the Schema tab shows it at once.
// Needs the engine in dist/ for the editor tests (`bash scripts/build-sql-worker.sh dist`).
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { BASE, copyDemoToOpfs, HAS_ENGINE, NEEDS_ENGINE, shot, testBrowser } from "./harness.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const CLI = process.env.LAKESCOPE_CLI ?? `${ROOT}target/debug/lakescope`;
const DEMO = `${ROOT}public/demo/warehouse`;

const NEEDS_CLI = existsSync(CLI) ? {} : { skip: `no CLI at ${CLI} (cargo build -p lakescope-cli)` };

const { openPage, openTable } = testBrowser();

/** The CLI's SHOW CREATE TABLE of `table` on the demo warehouse (one CSV cell, unquoted). */
function cliCreateTable(table) {
  const out = execFileSync(CLI, ["sql", "--warehouse", DEMO, "--format", "csv", "-e", `SHOW CREATE TABLE ${table}`], {
    encoding: "utf8",
  });
  const cell = out.slice(out.indexOf("\n") + 1).trim();
  return cell.startsWith('"') ? cell.slice(1, -1).replaceAll('""', '"') : cell;
}

/** Replaces the editor's text (an input event, as typing gives). */
async function setAlter(page, sql) {
  await page.getByTestId("ddl-input").fill(sql);
}

/** Waits until the engine has answered for the current text: a preview or an error. */
async function checked(page) {
  await page
    .locator('[data-testid="ddl-preview"], [data-testid="ddl-error"]')
    .first()
    .waitFor({ timeout: 180_000 });
  return (await page.getByTestId("ddl-preview").count()) > 0 ? "preview" : "error";
}

async function schemaVersions(page) {
  await page.getByTestId("schema-history").waitFor({ timeout: 30_000 });
  const ids = await page.getByTestId("schema-version").evaluateAll((els) => els.map((e) => Number(e.dataset.schema)));
  return ids.sort((a, b) => a - b);
}

test("DDL tab on the demo host: CREATE TABLE as SHOW CREATE TABLE gives it; Commit disabled with a note", NEEDS_CLI, async () => {
  const { page, problems, close } = await openTable("shop.customers", "&tab=ddl");
  try {
    const create = page.getByTestId("ddl-create");
    await create.waitFor({ timeout: 30_000 });
    assert.equal(await create.textContent(), cliCreateTable("shop.customers"));
    assert.equal(await page.getByTestId("ddl-input").inputValue(), "ALTER TABLE `shop`.`customers` ");
    assert.equal(await page.getByTestId("ddl-commit").isDisabled(), true);
    assert.match(await page.getByTestId("ddl-readonly").textContent(), /Read-only warehouse/);
    // the URL keeps the tab
    assert.match(page.url(), /[?&]tab=ddl\b/);
    await shot(page, "ddl-01-demo");
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("DDL tab on an OPFS copy: error underlined at its position, completion, preview, commit, Schema tab updated", NEEDS_ENGINE, async () => {
  const { page, problems, close } = await openPage();
  await page.setViewportSize({ width: 1280, height: 900 });
  try {
    await copyDemoToOpfs(page);
    await page.goto(new URL("?warehouse=opfs://my-lake&table=shop.customers&tab=schema", BASE).href);
    const before = await schemaVersions(page);
    await page.getByTestId("tab-ddl").click();
    await page.getByTestId("ddl-create").waitFor({ timeout: 30_000 });
    assert.equal(await page.getByTestId("ddl-commit").isDisabled(), true, "nothing typed: nothing to commit");

    // A malformed ALTER: the error is underlined at the engine's line and column.
    const bad = "ALTER TABLE `shop`.`customers`\n  ADD loyalty INT COMMENT 'points' )";
    await setAlter(page, bad);
    assert.equal(await checked(page), "error");
    const error = await page.getByTestId("ddl-error").textContent();
    const [, line, column] = error.match(/Error at line (\d+), column (\d+)/).map(Number);
    assert.equal(line, 2);
    const mark = page.getByTestId("ddl-error-mark");
    const wanted = bad.split("\n")[line - 1].slice(column - 1);
    assert.ok(wanted.startsWith((await mark.textContent()).trim()), `the underline is on the token at column ${column}`);
    assert.equal(await mark.textContent(), ")");
    // the highlighted text is the textarea's text
    const shown = await page.getByTestId("ddl-highlight").textContent();
    assert.equal(shown.trimEnd(), bad);
    assert.equal(await page.getByTestId("ddl-commit").isDisabled(), true, "an invalid statement cannot be committed");
    await shot(page, "ddl-02-error");
    // the same screen with the textarea's own text shown in red over the highlight: they must coincide
    await page.getByTestId("ddl-input").evaluate((e) => (e.style.color = "rgba(255,0,0,.55)"));
    await shot(page, "ddl-03-overlay-alignment");
    await page.getByTestId("ddl-input").evaluate((e) => (e.style.color = ""));

    // Completion: columns after Ctrl+Space; option keys with their documentation while typing.
    await setAlter(page, "ALTER TABLE `shop`.`customers` MODIFY ");
    await page.getByTestId("ddl-input").press("End");
    await page.getByTestId("ddl-input").press("Control+Space");
    const items = page.getByTestId("completion-item");
    await items.first().waitFor({ timeout: 10_000 });
    const columns = await items.evaluateAll((els) => els.filter((e) => e.dataset.kind === "column").map((e) => e.querySelector(".cmp-text").textContent));
    assert.ok(columns.includes("email") && columns.includes("region"), `columns offered: ${columns}`);
    await page.getByTestId("ddl-input").press("Escape");
    assert.equal(await page.getByTestId("completion").count(), 0);

    await setAlter(page, "ALTER TABLE `shop`.`customers` SET (");
    await page.getByTestId("ddl-input").press("End");
    await page.getByTestId("ddl-input").pressSequentially("'snapshot.num-ret");
    await items.first().waitFor({ timeout: 10_000 });
    const offered = await items.evaluateAll((els) => els.map((e) => [e.dataset.kind, e.querySelector(".cmp-text").textContent, e.querySelector(".cmp-doc")?.textContent ?? ""]));
    assert.deepEqual(offered.map((o) => o[1]), ["snapshot.num-retained.min", "snapshot.num-retained.max"]);
    assert.ok(offered.every(([kind, , doc]) => kind === "option" && /snapshots/.test(doc)), JSON.stringify(offered));
    // the list opens under the word being completed (column 20 of the first line)
    const list = await page.getByTestId("completion").boundingBox();
    const area = await page.getByTestId("ddl-input").boundingBox();
    assert.ok(list.x > area.x + 100 && list.y > area.y + 15, `list at ${JSON.stringify(list)}, editor at ${JSON.stringify(area)}`);
    await shot(page, "ddl-04-completion");
    await page.getByTestId("ddl-input").press("ArrowDown");
    await page.getByTestId("ddl-input").press("Enter");
    assert.equal(await page.getByTestId("ddl-input").inputValue(), "ALTER TABLE `shop`.`customers` SET ('snapshot.num-retained.max");

    // A valid ADD COLUMN: the preview shows the added field; Commit writes the next schema.
    const xss = "<img src=x onerror=alert(1)>";
    await setAlter(page, `ALTER TABLE \`shop\`.\`customers\` ADD loyalty INT COMMENT '${xss}' -- <b>not bold</b>`);
    assert.equal(await checked(page), "preview");
    const preview = page.getByTestId("ddl-preview");
    assert.match(await preview.textContent(), new RegExp(`schema-${Math.max(...before)} → schema-${Math.max(...before) + 1}`));
    assert.match(await preview.locator('[data-change="added"]').textContent(), /loyalty INT/);
    assert.equal(await page.locator(".ddl-tab img, .ddl-tab b").count(), 0, "the comment renders as text");
    await shot(page, "ddl-05-preview");
    assert.equal(await page.getByTestId("ddl-commit").isDisabled(), false);
    await page.getByTestId("ddl-commit").click();
    await page.getByTestId("ddl-committed").waitFor({ timeout: 120_000 });
    // the CREATE TABLE shows the column without a page reload
    await page.getByTestId("ddl-create").filter({ hasText: "`loyalty` INT" }).waitFor({ timeout: 30_000 });
    assert.equal(await page.getByTestId("ddl-input").inputValue(), "ALTER TABLE `shop`.`customers` ");
    await shot(page, "ddl-06-committed");

    await page.getByTestId("tab-schema").click();
    const after = await schemaVersions(page);
    assert.deepEqual(after, [...before, Math.max(...before) + 1]);
    const row = page.locator('[data-testid="schema-fields"] tr[data-field="loyalty"]');
    assert.equal(await row.locator(".comment").textContent(), xss);
    assert.equal(await page.locator('[data-testid="schema-fields"] img').count(), 0);
    await shot(page, "ddl-07-schema-after");
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});
