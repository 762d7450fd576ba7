// The viewer mcp-light serves as `ui://mcp-light/viewer.html`: a person's
// view of what a heavy read or a write answered. The host hands it the
// tool's result; a result kept behind a token travels a page at a time
// after that, through the server's app-only tools (`view_page`,
// `view_filter`, `view_summary`, `view_fetch`), so a million-row result
// shows as fast as a small one. A token names its own result: the view
// needs no word from the host on which tool answered, which the MCP Apps
// spec leaves optional.
import { App } from "@modelcontextprotocol/ext-apps";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Obj = { [key: string]: Json };
type ToolResult = {
  content?: { type: string; text?: string }[];
  structuredContent?: Obj;
  isError?: boolean;
};

const PAGE_SIZE = 25;
/** The key mcp-light wraps a whole answer that is not an object in. */
const WHOLE = "result";
const root = document.getElementById("view") as HTMLElement;
const app = new App({ name: "mcp-light viewer", version: "0.1.0" }, {});

/** Where the rows shown come from. */
type Source =
  /** The list kept behind a token, read a page at a time. */
  | { kind: "token"; token: string }
  /** Written objects fetched a page at a time by their ids, through the write's retrieve tool. */
  | { kind: "ids"; ids: Json[]; tool: string }
  /** Rows at hand: a whole answer, paged here. */
  | { kind: "here"; items: Json[] };

/** What is shown, and how another page is reached. */
interface Shown {
  /** The tool that answered, when the host said. */
  tool?: string;
  /** What the rows are, for the heading: "rows kept", "written objects". */
  what: string;
  source: Source;
  page: number;
  pages?: number;
  filterKeys: string[];
}
let shown: Shown | undefined;

function element<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  ...children: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, value);
  node.append(...children);
  return node;
}

function textOf(result: ToolResult): string {
  return (result.content ?? [])
    .map((block) => (block.type === "text" ? (block.text ?? "") : ""))
    .join("\n");
}

/** The JSON a result carries: its structured content, or its text read as JSON. */
function jsonOf(result: ToolResult): Json | undefined {
  if (result.structuredContent !== undefined) return result.structuredContent;
  try {
    return JSON.parse(textOf(result)) as Json;
  } catch {
    return undefined;
  }
}

function isObj(value: Json | undefined): value is Obj {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A sentence in place of the view. */
function say(sentence: string, kind = "note"): void {
  root.replaceChildren(element("p", { class: kind, id: "sentence" }, sentence));
}

/** Why a token's rows cannot be shown, in a person's words. */
function refusal(error: string): string {
  if (/continuation token is unknown|continuation_token` must be/.test(error)) {
    return "This result is no longer kept for you: its token is unknown, has expired, or belongs to another caller.";
  }
  return `The server could not show this result: ${error}`;
}

async function call(name: string, args: Obj): Promise<Json> {
  const result = (await app.callServerTool({ name, arguments: args })) as ToolResult;
  if (result.isError) throw new Error(textOf(result));
  return jsonOf(result) ?? null;
}

/** The arguments that read the result behind `token`: the tool, when the host named it. */
function kept(token: string, tool: string | undefined): Obj {
  return tool === undefined ? { continuation_token: token } : { tool, continuation_token: token };
}

function cell(value: Json | undefined): string {
  if (value === undefined || value === null) return "";
  return typeof value === "object" ? JSON.stringify(value) : String(value);
}

/**
 * A value a person reads nothing in at a glance: a UUID, a URL or a path.
 * A column of them is kept narrow, its full values in each cell's title.
 */
function opaque(value: Json | undefined): boolean {
  if (typeof value !== "string") return false;
  return (
    /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value) ||
    /^(?:[a-z][a-z0-9+.-]*:\/\/|\/)\S{12,}$/i.test(value)
  );
}

/**
 * Items as a table: one column per key, in the order first seen. A cell
 * too long for its column ends in an ellipsis and carries its whole value
 * in its title; the table scrolls sideways when its columns are many.
 */
function table(items: Json[]): HTMLTableElement {
  const keys: string[] = [];
  for (const item of items) {
    if (isObj(item)) for (const key of Object.keys(item)) if (!keys.includes(key)) keys.push(key);
  }
  const columns = keys.length > 0 ? keys : ["value"];
  const valueOf = (item: Json, key: string) => (isObj(item) ? item[key] : item);
  const narrow = columns.map((key) => {
    const values = items.map((item) => valueOf(item, key)).filter((value) => cell(value) !== "");
    return values.length > 0 && values.every(opaque);
  });
  const head = element(
    "tr",
    {},
    ...columns.map((key, at) => element("th", { title: key, ...(narrow[at] ? { class: "opaque" } : {}) }, key)),
  );
  const rows = items.map((item) =>
    element(
      "tr",
      { class: "row" },
      ...columns.map((key, at) => {
        const text = cell(valueOf(item, key));
        return element("td", { ...(text ? { title: text } : {}), ...(narrow[at] ? { class: "opaque" } : {}) }, text);
      }),
    ),
  );
  return element("table", { id: "rows" }, element("thead", {}, head), element("tbody", {}, ...rows));
}

/** The summary's value counts, one bar chart a field. */
function charts(summary: Obj): HTMLElement {
  const section = element("div", { id: "charts" });
  const fields = isObj(summary.fields) ? summary.fields : {};
  for (const [field, stats] of Object.entries(fields)) {
    if (!isObj(stats) || !isObj(stats.values)) continue;
    const counts = Object.entries(stats.values).filter(
      (entry): entry is [string, number] => typeof entry[1] === "number",
    );
    // A field whose values hardly repeat says nothing as a chart.
    const charted = counts.reduce((sum, [, count]) => sum + count, 0);
    if (counts.length < 2 || (typeof stats.other === "number" && stats.other > charted)) continue;
    const most = Math.max(...counts.map(([, count]) => count));
    // A label wraps rather than being cut: the whole value is read.
    const bars = counts.map(([value, count]) =>
      element(
        "div",
        { class: "bar", title: `${value}: ${count}`, "data-value": value, "data-count": String(count) },
        element("span", { class: "label" }, value),
        element("span", { class: "fill", style: `width:${(100 * count) / most}%` }),
        element("span", { class: "count" }, String(count)),
      ),
    );
    const title = `${field}: count per value${typeof stats.other === "number" ? ` (${stats.other} other)` : ""}`;
    section.append(element("figure", { class: "chart", "data-field": field }, element("figcaption", {}, title), ...bars));
  }
  return section;
}

/** The filter: one checkbox a key the summary names. */
function filter(keys: string[]): HTMLElement {
  const boxes = keys.map((key) =>
    element("label", {}, element("input", { type: "checkbox", value: key, class: "key" }), key),
  );
  const apply = element("button", { id: "filter" }, "Show these fields");
  apply.addEventListener("click", () => {
    if (!shown) return;
    shown.filterKeys = [...root.querySelectorAll<HTMLInputElement>("input.key:checked")].map((box) => box.value);
    void turn(1);
  });
  return element("fieldset", { id: "keys" }, element("legend", {}, "Fields"), ...boxes, apply);
}

function pager(): HTMLElement {
  const previous = element("button", { id: "previous" }, "Previous");
  const next = element("button", { id: "next" }, "Next");
  previous.addEventListener("click", () => shown && void turn(shown.page - 1));
  next.addEventListener("click", () => shown && void turn(shown.page + 1));
  return element("nav", {}, previous, element("span", { id: "where" }), next);
}

/** Page `page` of what is shown, and how many rows there are in all. */
async function rowsOf(shown: Shown, page: number): Promise<{ items: Json[]; total: number }> {
  const { source } = shown;
  switch (source.kind) {
    case "token": {
      const filtered = shown.filterKeys.length > 0;
      const answer = await call(filtered ? "view_filter" : "view_page", {
        ...kept(source.token, shown.tool),
        page,
        page_size: PAGE_SIZE,
        ...(filtered ? { filter_keys: shown.filterKeys } : {}),
      });
      const listed = isObj(answer) ? answer : {};
      const items = Array.isArray(listed.items) ? listed.items : [answer];
      return { items, total: typeof listed.total === "number" ? listed.total : items.length };
    }
    case "ids": {
      const ids = source.ids.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE);
      const answer = await call("view_fetch", { tool: source.tool, ids });
      return { items: isObj(answer) && Array.isArray(answer.items) ? answer.items : [], total: source.ids.length };
    }
    case "here":
      return { items: source.items.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE), total: source.items.length };
  }
}

/** Shows page `page` of what is shown. */
async function turn(page: number): Promise<void> {
  if (!shown || page < 1 || (shown.pages !== undefined && page > shown.pages)) return;
  const rows = root.querySelector("#page") as HTMLElement;
  let read: { items: Json[]; total: number };
  try {
    read = await rowsOf(shown, page);
  } catch (error) {
    say(refusal((error as Error).message), "refused");
    return;
  }
  const { items, total } = read;
  shown.page = page;
  shown.pages = Math.max(1, Math.ceil(total / PAGE_SIZE));
  rows.replaceChildren(table(items));
  // When the first rows showed, on the clock the host reads too.
  document.body.dataset.firstRow ??= String(performance.timeOrigin + performance.now());
  const named = shown.tool === undefined ? "" : `${shown.tool}: `;
  (root.querySelector("h2") as HTMLElement).textContent = `${named}${total} ${shown.what}`;
  (root.querySelector("#where") as HTMLElement).textContent =
    `page ${page} of ${shown.pages} (${total} rows)`;
  const previous = root.querySelector("#previous") as HTMLButtonElement;
  const next = root.querySelector("#next") as HTMLButtonElement;
  previous.disabled = page <= 1;
  next.disabled = page >= shown.pages;
  // One page has nowhere to turn to.
  previous.hidden = next.hidden = shown.pages === 1;
}

/** The frame of a paged view: heading, pager, the page, and `notes` above the page. */
function frame(tool: string | undefined, ...notes: HTMLElement[]): void {
  root.replaceChildren(element("h2", {}, tool ?? ""), ...notes, pager(), element("div", { id: "page" }));
}

/** The view of a list kept behind `token`: a summary's charts and filter, and page 1. */
async function showKept(tool: string | undefined, token: string, what: string): Promise<void> {
  shown = { tool, what, source: { kind: "token", token }, page: 1, filterKeys: [] };
  frame(tool);
  // The summary is asked for beside page 1, which shows as soon as it comes.
  const asked = call("view_summary", kept(token, tool)).catch((error: Error) => error);
  await turn(1);
  const summary = await asked;
  if (summary instanceof Error) {
    say(refusal(summary.message), "refused");
    return;
  }
  // A refused page said so in place of the view.
  if (root.querySelector("#page") && isObj(summary) && isObj(summary.fields)) {
    root.append(filter(Object.keys(summary.fields)), charts(summary));
  }
}

/** The view of rows at hand, `notes` above them. */
async function showHere(tool: string | undefined, items: Json[], what: string, ...notes: HTMLElement[]) {
  shown = { tool, what, source: { kind: "here", items }, page: 1, filterKeys: [] };
  frame(tool, ...notes);
  await turn(1);
}

async function show(result: ToolResult): Promise<void> {
  if (result.isError) return say(`The call failed: ${textOf(result)}`, "refused");
  const answer = jsonOf(result);
  // The spec leaves the tool's name to the host: it is shown when given,
  // and needed only to fetch written objects by their ids.
  const tool = app.getHostContext()?.toolInfo?.tool.name;
  if (Array.isArray(answer)) return showHere(tool, answer, "rows");
  if (!isObj(answer)) {
    root.replaceChildren(element("pre", {}, cell(answer ?? textOf(result))));
    return;
  }
  // A whole answer that is not an object, wrapped: a list shows as a page does.
  const keys = Object.keys(answer);
  if (keys.length === 1 && keys[0] === WHOLE) {
    const whole = answer[WHOLE];
    if (Array.isArray(whole)) return showHere(tool, whole, "rows");
    root.replaceChildren(element("pre", { id: "whole" }, cell(whole)));
    return;
  }
  const token = answer.continuation_token;
  if (token === "") return say("This answer carries an empty continuation token: nothing was kept to show.");
  if (typeof answer.why_no_token === "string") {
    root.replaceChildren(
      element("p", { class: "note", id: "sentence" }, `The server kept no rows to page: ${answer.why_no_token}`),
      ...(isObj(answer.summary) ? [charts(answer.summary)] : []),
    );
    return;
  }
  if (typeof token === "string" && Array.isArray(answer.available_modes)) {
    return showKept(tool, token, "rows kept");
  }
  if (typeof token === "string" && typeof answer.accepted === "number") {
    return showKept(tool, token, "written objects");
  }
  if (typeof token === "string") {
    try {
      const whole = await call("view_fetch", kept(token, tool));
      root.replaceChildren(element("h2", {}, "The written object"), table([whole]));
    } catch (error) {
      say(refusal((error as Error).message), "refused");
    }
    return;
  }
  if (Array.isArray(answer.ids)) {
    if (tool !== undefined) {
      shown = { tool, what: "written objects", source: { kind: "ids", ids: answer.ids, tool }, page: 1, filterKeys: [] };
      frame(tool);
      return turn(1);
    }
    // Ids alone do not say whose retrieve tool reads them.
    const note = element(
      "p",
      { class: "note", id: "sentence" },
      "The host did not say which tool wrote these objects, so their ids are shown without the objects.",
    );
    return showHere(tool, answer.ids.map((id) => ({ id })), "written objects", note);
  }
  root.replaceChildren(table([answer]));
}

app.ontoolresult = (result) => void show(result as ToolResult);
say("Waiting for the tool's result.");
void app.connect();
