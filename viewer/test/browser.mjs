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

  // A heavy read: the model reads the probe, the person the rows.
  const listed = await page.evaluate(() => window.host.run("device_list", {}));
  const probe = listed.result.structuredContent;
  check("the model read a probe with a token", typeof probe?.continuation_token === "string" && !("items" in probe));
  check("the viewer's tools are listed to this host", ["view_page", "view_filter", "view_summary", "view_fetch"].every((name) => listed.visibleTools.includes(name)));
  await view().locator("#where").filter({ hasText: "page 1 of" }).waitFor();
  const firstRow = Number(await viewFrame().evaluate(() => document.body.dataset.firstRow));
  const total = Number((await view().locator("#where").textContent()).match(/\((\d+) rows\)/)[1]);
  const rows1 = await view().locator("tr.row").allTextContents();
  check("page 1 shows 25 rows of the whole list", rows1.length === 25 && total >= 10000, `${rows1.length} rows of ${total}`);
  console.log(`time from tool result to first rendered row: ${(firstRow - listed.sentAt).toFixed(1)} ms at ${total} devices`);

  await view().locator("#next").click();
  await view().locator("#where").filter({ hasText: "page 2 of" }).waitFor();
  const rows2 = await view().locator("tr.row").allTextContents();
  check("Next shows page 2, other rows", rows2.length === 25 && rows2[0] !== rows1[0]);

  const chart = view().locator('figure[data-field="site_slug"] .bar');
  await chart.first().waitFor();
  const counts = (await chart.evaluateAll((bars) => bars.map((bar) => Number(bar.dataset.count))));
  check("the chart of devices per site counts every device", counts.length >= 2 && counts.reduce((a, b) => a + b, 0) === total, `${counts.length} sites`);

  await view().locator('input.key[value="name"]').check();
  await view().locator('input.key[value="site_slug"]').check();
  await view().locator("#filter").click();
  await view().locator("th").nth(1).filter({ hasText: "site_slug" }).waitFor();
  const headings = await view().locator("th").allTextContents();
  const filteredRows = await view().locator("tr.row").count();
  check("a filtered page shows the chosen fields only", headings.join(",") === "name,site_slug" && filteredRows === 25, headings.join(","));
  await page.screenshot({ path: join(out, "viewer-list.png") });

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
  await view().locator("#where").filter({ hasText: "(60 rows)" }).waitFor();
  const written = await view().locator("tr.row td:nth-child(3)").allTextContents();
  check("the viewer shows the 60 written objects, 25 a page", written.length === 25 && written.every((name, i) => name === `viewer-${run}-${i}`), written.slice(0, 3).join(","));
  await page.screenshot({ path: join(out, "viewer-bulk.png") });

  // The same write through the dispatcher, whose envelope carries a token:
  // the objects are redeemed by it.
  const renamed = devices.map((device) => ({ ...device, name: `${device.name}-token` }));
  const routed = await page.evaluate(
    (devices) => window.host.run("inventory", { resource: "device", action: "bulk_create", params: { devices } }),
    renamed,
  );
  const routedEnvelope = routed.result.structuredContent;
  check("the dispatcher's envelope carries a token", typeof routedEnvelope?.continuation_token === "string");
  await view().locator("#where").filter({ hasText: "(60 rows)" }).waitFor();
  const redeemed = await view().locator("tr.row td:nth-child(3)").allTextContents();
  check("the viewer redeems the token for the written objects", redeemed[0] === `viewer-${run}-0-token` && redeemed.length === 25, redeemed.slice(0, 2).join(","));

  // A token the server no longer keeps, and an empty one: a sentence each.
  for (const [token, sentence] of [
    ["expired-or-never-issued", "no longer kept for you"],
    ["", "empty continuation token"],
  ]) {
    await page.evaluate((token) => window.host.run("device_list", {}, token), token);
    const said = view().locator("#sentence").filter({ hasText: sentence });
    await said.waitFor();
    check(`a token ${JSON.stringify(token)} shows a sentence`, (await said.count()) === 1, await said.textContent());
  }
} catch (error) {
  failed += 1;
  console.log(`FAILED: ${error.stack ?? error}`);
} finally {
  await browser.close();
  proxy.close();
}
console.log(`browser: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
