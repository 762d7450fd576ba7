// The viewer in a real browser: Debian's chromium, headless, driven by
// playwright-core, loads the test host page (test/host.ts), which talks to
// the inventory over Streamable HTTP through a same-origin proxy here.
//
//   node test/browser.mjs INVENTORY_URL OUT_DIR
//
// INVENTORY_URL is a running inventory's http://HOST:PORT/mcp, seeded
// with the devices to list. Prints the checks and `N passed, N failed`;
// exits non-zero on a failure. Keeps OUT_DIR/viewer-list.png and
// OUT_DIR/viewer-bulk.png.
import { createServer, request } from "node:http";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { chromium } from "playwright-core";

const [inventory, out] = process.argv.slice(2);
const upstream = new URL(inventory);
const hostPage = readFileSync(join(out, "host.html"));

// The host page, and /mcp passed to the inventory as it comes and goes
// (event streams included), so the page calls its own origin.
const proxy = createServer((incoming, outgoing) => {
  if (!incoming.url.startsWith("/mcp")) {
    outgoing.writeHead(200, { "content-type": "text/html" }).end(hostPage);
    return;
  }
  const headers = { ...incoming.headers, host: upstream.host };
  delete headers.origin;
  const forwarded = request(
    { host: upstream.hostname, port: upstream.port, path: upstream.pathname, method: incoming.method, headers },
    (answer) => {
      outgoing.writeHead(answer.statusCode, answer.headers);
      answer.pipe(outgoing);
    },
  );
  forwarded.on("error", (error) => outgoing.destroy(error));
  incoming.pipe(forwarded);
});
await new Promise((done) => proxy.listen(0, "127.0.0.1", done));
const site = `http://127.0.0.1:${proxy.address().port}/`;

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu"],
});
let passed = 0;
let failed = 0;
function check(what, ok, detail = "") {
  if (ok) passed += 1;
  else failed += 1;
  console.log(`${ok ? "ok" : "FAILED"}: ${what}${detail ? ` (${detail})` : ""}`);
}

try {
  const page = await browser.newPage({ viewport: { width: 1140, height: 1560 } });
  // An error the page or the view left uncaught fails the run.
  page.on("pageerror", (error) => check(`no uncaught error (${error.message})`, false));
  await page.goto(site);
  const view = () => page.frameLocator("#view");
  const viewFrame = () => page.frames().find((frame) => frame !== page.mainFrame());
  const where = (text) => view().locator("#where").filter({ hasText: text }).waitFor();
  const rowCells = (column) => view().locator(`tr.row td:nth-child(${column})`).allTextContents();

  // The height the view last told the host, once it has stopped changing,
  // against the bottom of the view's content; the host sized the frame to
  // it, so the frame has nothing to scroll.
  async function checkHeight(what) {
    let last;
    for (let stable = 0, tries = 0; stable < 3 && tries < 100; tries += 1) {
      await page.waitForTimeout(100);
      const now = JSON.stringify(await page.evaluate(() => window.host.reported()));
      stable = now === last ? stable + 1 : 0;
      last = now;
    }
    const told = JSON.parse(last).height;
    const content = await viewFrame().evaluate(() => {
      const margin = parseFloat(getComputedStyle(document.body).marginBottom);
      const bottom = document.getElementById("view").getBoundingClientRect().bottom + scrollY + margin;
      return { height: Math.ceil(bottom), scrolls: document.documentElement.scrollHeight, frame: innerHeight };
    });
    check(
      `${what}: the height told to the host is the content's`,
      Math.abs(told - content.height) <= 2 && content.scrolls <= content.frame + 1,
      `told ${told} px, content ${content.height} px, frame ${content.frame} px`,
    );
  }

  // A heavy read: the model reads the probe, the person the rows.
  const listed = await page.evaluate(() => window.host.run("device_list", {}));
  const probe = listed.result.structuredContent;
  check("the model read a probe with a token", typeof probe?.continuation_token === "string" && !("items" in probe));
  check("the viewer's tools are listed to this host", ["view_page", "view_filter", "view_summary", "view_fetch"].every((name) => listed.visibleTools.includes(name)));
  await where("page 1 of");
  const firstRow = Number(await viewFrame().evaluate(() => document.body.dataset.firstRow));
  const total = Number((await view().locator("#where").textContent()).match(/\((\d+) rows\)/)[1]);
  const rows1 = await view().locator("tr.row").allTextContents();
  check("page 1 shows 25 rows of the whole list", rows1.length === 25 && total >= 10000, `${rows1.length} rows of ${total}`);
  console.log(`time from tool result to first rendered row: ${(firstRow - listed.sentAt).toFixed(1)} ms at ${total} devices`);

  // Every column in reach: ids and links narrow, each whole in its title,
  // the status in view, the last column a sideways scroll away.
  const columns = await viewFrame().evaluate(() => {
    const heads = [...document.querySelectorAll("#rows th")];
    const named = (name) => heads.find((head) => head.textContent === name);
    const at = heads.indexOf(named("id"));
    const ids = [...document.querySelectorAll(`#rows tr.row td:nth-child(${at + 1})`)];
    const scroller = document.getElementById("page");
    scroller.scrollLeft = scroller.scrollWidth;
    const lastRight = heads.at(-1).getBoundingClientRect().right;
    scroller.scrollLeft = 0;
    return {
      width: innerWidth,
      statusRight: named("status")?.getBoundingClientRect().right ?? Infinity,
      idWidth: named("id")?.getBoundingClientRect().width ?? Infinity,
      idsWhole: ids.length > 0 && ids.every((id) => /^[0-9a-f-]{36}$/.test(id.title) && id.title === id.textContent),
      urlWidth: named("url")?.getBoundingClientRect().width ?? Infinity,
      last: heads.at(-1).textContent,
      lastRight,
    };
  });
  check("the status column is in view", columns.statusRight <= columns.width, `its right edge at ${Math.round(columns.statusRight)} of ${columns.width} px`);
  check("the id and url columns are narrow, each id whole in its cell's title", columns.idWidth <= 110 && columns.urlWidth <= 110 && columns.idsWhole, `${Math.round(columns.idWidth)} px, ${Math.round(columns.urlWidth)} px`);
  check("the last column is a sideways scroll away", columns.lastRight <= columns.width, `${columns.last} ends at ${Math.round(columns.lastRight)} px`);

  await view().locator("#next").click();
  await where("page 2 of");
  const rows2 = await view().locator("tr.row").allTextContents();
  check("Next shows page 2, other rows", rows2.length === 25 && rows2[0] !== rows1[0]);

  const chart = view().locator('figure[data-field="site_slug"] .bar');
  await chart.first().waitFor();
  const counts = (await chart.evaluateAll((bars) => bars.map((bar) => Number(bar.dataset.count))));
  check("the chart of devices per site counts every device", counts.length >= 2 && counts.reduce((a, b) => a + b, 0) === total, `${counts.length} sites`);
  const labels = await view().locator("figure.chart .bar").evaluateAll((bars) =>
    bars.map((bar) => {
      const label = bar.querySelector(".label");
      const cut = label.scrollWidth > label.clientWidth + 1 || label.scrollHeight > label.clientHeight + 1;
      return { value: bar.dataset.value, text: label.textContent, title: bar.title, cut };
    }),
  );
  const longest = labels.reduce((a, b) => (b.value.length > a.value.length ? b : a), { value: "" });
  // Only fields whose values repeat are charted; the longest repeating
  // value of the fixture is a model name of 23 characters.
  check(
    "every chart label reads whole, on the chart and in its title",
    longest.value.length >= 20 && labels.every((label) => label.text === label.value && !label.cut && label.title.startsWith(label.value)),
    `${labels.length} labels, the longest "${longest.value}"`,
  );
  const uniqueCharts = await view().locator('figure[data-field="name"], figure[data-field="url"], figure[data-field="id"]').count();
  check("a field whose every value differs draws no chart", uniqueCharts === 0, `${uniqueCharts} charts of name, url, id`);
  await checkHeight("the list");

  await view().locator('input.key[value="name"]').check();
  await view().locator('input.key[value="site_slug"]').check();
  await view().locator("#filter").click();
  await view().locator("th").nth(1).filter({ hasText: "site_slug" }).waitFor();
  const headings = await view().locator("th").allTextContents();
  const filteredRows = await view().locator("tr.row").count();
  check("a filtered page shows the chosen fields only", headings.join(",") === "name,site_slug" && filteredRows === 25, headings.join(","));
  await checkHeight("the filtered list");
  await page.screenshot({ path: join(out, "viewer-list.png"), fullPage: true });

  // A host that does not say which tool answered (the spec leaves
  // toolInfo optional): the token names its result.
  await page.evaluate(() => window.host.run("device_list", {}, { toolInfo: false }));
  await where("page 1 of");
  const untold = await view().locator("tr.row").count();
  await view().locator("#next").click();
  await where("page 2 of");
  await view().locator('figure[data-field="site_slug"] .bar').first().waitFor();
  check("without toolInfo the probe shows its rows, pages and charts", untold === 25 && (await view().locator("tr.row").count()) === 25);
  await checkHeight("the list without toolInfo");

  // A bulk write: the model reads the envelope, the person the objects.
  // Named for this run, so a run against a server an earlier run wrote to
  // creates new devices.
  const run = Date.now().toString(36);
  const devices = Array.from({ length: 60 }, (_, i) => ({
    name: `viewer-${run}-${i}`,
    site_slug: "ams1",
    role: "leaf",
    device_type: "qfx5120",
  }));
  const bulk = await page.evaluate((devices) => window.host.run("device_bulk_create", { devices }), devices);
  const envelope = bulk.result.structuredContent;
  check("the model read a lean envelope", envelope?.accepted === 60 && !("items" in envelope), JSON.stringify(envelope).slice(0, 80));
  await where("(60 rows)");
  const written = await rowCells(3);
  check("the viewer shows the 60 written objects, 25 a page", written.length === 25 && written.every((name, i) => name === `viewer-${run}-${i}`), written.slice(0, 3).join(","));
  await checkHeight("the written objects");
  await page.screenshot({ path: join(out, "viewer-bulk.png"), fullPage: true });

  // Without toolInfo nothing names the tool that wrote the objects, but a
  // bulk write's envelope carries a token: the objects are redeemed by it.
  const unnamed = devices.slice(0, 30).map((device) => ({ ...device, name: `${device.name}-unnamed` }));
  const flat = await page.evaluate(
    (devices) => window.host.run("device_bulk_create", { devices }, { toolInfo: false }),
    unnamed,
  );
  check("a bulk write's envelope carries a token", typeof flat.result.structuredContent?.continuation_token === "string");
  await where("(30 rows)");
  const shownNames = await rowCells(3);
  check(
    "without toolInfo a bulk write's objects show through its token",
    shownNames.length === 25 && shownNames.every((name, i) => name === unnamed[i].name),
    shownNames.slice(0, 2).join(","),
  );

  // The same write through the dispatcher, whose envelope carries a token:
  // the objects are redeemed by it, the host naming no tool.
  const renamed = devices.map((device) => ({ ...device, name: `${device.name}-token` }));
  const routed = await page.evaluate(
    (devices) => window.host.run("inventory", { resource: "device", action: "bulk_create", params: { devices } }, { toolInfo: false }),
    renamed,
  );
  const routedEnvelope = routed.result.structuredContent;
  check("the dispatcher's envelope carries a token", typeof routedEnvelope?.continuation_token === "string");
  await where("(60 rows)");
  const redeemed = await rowCells(3);
  check("the viewer redeems the token for the written objects", redeemed[0] === `viewer-${run}-0-token` && redeemed.length === 25, redeemed.slice(0, 2).join(","));

  // A write with `verify: true` answers the objects whole, {"result": [...]}:
  // rows, paged here. Three of them are planned, for the small read below.
  const role = `viewer-${run}`;
  const verified = devices.slice(0, 30).map((device, i) => ({
    ...device,
    name: `${device.name}-verified`,
    role,
    status: i < 3 ? "planned" : "active",
  }));
  const verify = await page.evaluate(
    (devices) => window.host.run("device_bulk_create", { devices, verify: true }),
    verified,
  );
  check("a verified write answers its objects whole", Array.isArray(verify.result.structuredContent?.result) && verify.result.structuredContent.result.length === 30);
  await where("(30 rows)");
  const verifiedPage1 = await rowCells(3);
  await view().locator("#next").click();
  await where("page 2 of 2");
  const verifiedPage2 = await rowCells(3);
  check(
    "the verified objects show as rows, 25 a page",
    [...verifiedPage1, ...verifiedPage2].join() === verified.map((device) => device.name).join(),
    `${verifiedPage1.length} + ${verifiedPage2.length} rows`,
  );
  await checkHeight("the verified objects");

  // A small read answered whole, {"result": [...]}: one page, no pager.
  const small = await page.evaluate((role) => window.host.run("device_list", { role, status: "planned" }), role);
  check(
    "a small read answers whole in one call, and the view is handed it",
    Array.isArray(small.result.structuredContent?.result) && small.result.structuredContent.result.length === 3,
    JSON.stringify(small.result.structuredContent).slice(0, 200),
  );
  await where("(3 rows)");
  const smallRows = await rowCells(3);
  const pagerShown = await view().locator("#next").isVisible();
  check(
    "a whole small read shows as one page",
    smallRows.join() === verified.slice(0, 3).map((device) => device.name).join() && !pagerShown,
    smallRows.join(","),
  );
  await checkHeight("the small read");

  // A token the server no longer keeps, and an empty one: a sentence each.
  for (const [token, sentence] of [
    ["expired-or-never-issued", "no longer kept for you"],
    ["", "empty continuation token"],
  ]) {
    await page.evaluate((token) => window.host.run("device_list", {}, { token }), token);
    const said = view().locator("#sentence").filter({ hasText: sentence });
    await said.waitFor();
    check(`a token ${JSON.stringify(token)} shows a sentence`, (await said.count()) === 1, await said.textContent());
  }
  await checkHeight("a sentence");
} catch (error) {
  failed += 1;
  console.log(`FAILED: ${error.stack ?? error}`);
} finally {
  await browser.close();
  proxy.close();
}
console.log(`browser: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
