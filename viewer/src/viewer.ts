// The viewer mcp-light serves as `ui://mcp-light/viewer.html`: a person's
// view of what a heavy read or a write kept behind its token. The host
// hands it the tool's result; only pages travel after that, through the
// server's app-only tools (`view_page`, `view_filter`, `view_summary`,
// `view_fetch`), so a million-row result shows as fast as a small one.
import { App } from "@modelcontextprotocol/ext-apps";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Obj = { [key: string]: Json };
type ToolResult = {
  content?: { type: string; text?: string }[];
  structuredContent?: Obj;
  isError?: boolean;
};

const PAGE_SIZE = 25;
const root = document.getElementById("view") as HTMLElement;
const app = new App({ name: "mcp-light viewer", version: "0.1.0" }, {});

/** What is shown, and how the next page is reached. */
interface Shown {
  tool: string;
  /** What the rows are, for the heading: "rows kept", "written objects". */
  what: string;
  /** The token's page, or the ids a page of which is fetched. */
  token?: string;
  ids?: Json[];
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

function cell(value: Json | undefined): string {
  if (value === undefined || value === null) return "";
  return typeof value === "object" ? JSON.stringify(value) : String(value);
}

/** Items as a table: one column per key, in the order first seen. */
function table(items: Json[]): HTMLTableElement {
  const keys: string[] = [];
  for (const item of items) {
    if (isObj(item)) for (const key of Object.keys(item)) if (!keys.includes(key)) keys.push(key);
  }
  const columns = keys.length > 0 ? keys : ["value"];
  const head = element("tr", {}, ...columns.map((key) => element("th", {}, key)));
  const rows = items.map((item) =>
    element(
      "tr",
      { class: "row" },
      ...columns.map((key) => element("td", {}, cell(isObj(item) ? item[key] : item))),
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
    const bars = counts.map(([value, count]) =>
      element(
        "div",
        { class: "bar", "data-value": value, "data-count": String(count) },
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

/** Shows page `page` of what is shown. */
async function turn(page: number): Promise<void> {
  if (!shown || page < 1 || (shown.pages !== undefined && page > shown.pages)) return;
  const rows = root.querySelector("#page") as HTMLElement;
  let items: Json[];
  let total: number;
  try {
    if (shown.token !== undefined) {
      const filtered = shown.filterKeys.length > 0;
      const answer = await call(filtered ? "view_filter" : "view_page", {
        tool: shown.tool,
        continuation_token: shown.token,
        page,
        page_size: PAGE_SIZE,
        ...(filtered ? { filter_keys: shown.filterKeys } : {}),
      });
      const listed = isObj(answer) ? answer : {};
      items = Array.isArray(listed.items) ? listed.items : [answer];
      total = typeof listed.total === "number" ? listed.total : items.length;
    } else {
      const ids = (shown.ids ?? []).slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE);
      const answer = await call("view_fetch", { tool: shown.tool, ids });
      items = isObj(answer) && Array.isArray(answer.items) ? answer.items : [];
      total = shown.ids?.length ?? 0;
    }
  } catch (error) {
    say(refusal((error as Error).message), "refused");
    return;
  }
  shown.page = page;
  shown.pages = Math.max(1, Math.ceil(total / PAGE_SIZE));
  rows.replaceChildren(table(items));
  // When the first rows showed, on the clock the host reads too.
  document.body.dataset.firstRow ??= String(performance.timeOrigin + performance.now());
  (root.querySelector("h2") as HTMLElement).textContent = `${shown.tool}: ${total} ${shown.what}`;
  (root.querySelector("#where") as HTMLElement).textContent =
    `page ${page} of ${shown.pages} (${total} rows)`;
  (root.querySelector("#previous") as HTMLButtonElement).disabled = page <= 1;
  (root.querySelector("#next") as HTMLButtonElement).disabled = page >= shown.pages;
}

/** The view of a list kept behind `token`: a summary's charts and filter, and page 1. */
async function showKept(tool: string, token: string, what: string): Promise<void> {
  shown = { tool, what, token, page: 1, filterKeys: [] };
  root.replaceChildren(element("h2", {}, tool), pager(), element("div", { id: "page" }));
  // The summary is asked for beside page 1, which shows as soon as it comes.
  const asked = call("view_summary", { tool, continuation_token: token }).catch((error: Error) => error);
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

/** The view of written objects reached by their ids. */
async function showIds(tool: string, ids: Json[]): Promise<void> {
  shown = { tool, what: "written objects", ids, page: 1, filterKeys: [] };
  root.replaceChildren(element("h2", {}, tool), pager(), element("div", { id: "page" }));
  await turn(1);
}

async function show(result: ToolResult): Promise<void> {
  if (result.isError) return say(`The call failed: ${textOf(result)}`, "refused");
  const answer = jsonOf(result);
  const tool = app.getHostContext()?.toolInfo?.tool.name;
  if (!isObj(answer)) {
    root.replaceChildren(Array.isArray(answer) ? table(answer) : element("pre", {}, cell(answer ?? textOf(result))));
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
  const kept = typeof token === "string";
  if ((kept || Array.isArray(answer.ids)) && tool === undefined) {
    return say("The host did not say which tool answered, so the kept rows cannot be fetched.");
  }
  if (kept && Array.isArray(answer.available_modes)) {
    return showKept(tool!, token, "rows kept");
  }
  if (kept && typeof answer.accepted === "number") {
    return showKept(tool!, token, "written objects");
  }
  if (kept) {
    try {
      const whole = await call("view_fetch", { tool: tool!, continuation_token: token });
      root.replaceChildren(element("h2", {}, "The written object"), table([whole]));
    } catch (error) {
      say(refusal((error as Error).message), "refused");
    }
    return;
  }
  if (Array.isArray(answer.ids)) return showIds(tool!, answer.ids);
  root.replaceChildren(table([answer]));
}

app.ontoolresult = (result) => void show(result as ToolResult);
say("Waiting for the tool's result.");
void app.connect();
