// The browser test's host: a page that speaks MCP Apps as a chat client
// would. It connects to the server over Streamable HTTP declaring the
// extension, calls a tool, reads the `ui://` resource the tool names, and
// renders it in a sandboxed iframe through ext-apps' AppBridge, which
// hands the view the tool's result and carries its tool calls back.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";

const MIME = "text/html;profile=mcp-app";
const info = { name: "mcp-light-test-host", version: "1.0.0" };

async function connect(): Promise<Client> {
  const client = new Client(info, {
    capabilities: { extensions: { "io.modelcontextprotocol/ui": { mimeTypes: [MIME] } } },
  });
  await client.connect(new StreamableHTTPClientTransport(new URL("/mcp", location.href)));
  return client;
}

const connected = connect();
let bridge: AppBridge | undefined;

/**
 * Calls `name` with `args` and shows its view; answers what the model read
 * and when the view got it. With `token`, the view gets the result with
 * its continuation token replaced, as if it had expired or been emptied.
 */
async function run(name: string, args: Record<string, unknown>, token?: string) {
  const client = await connected;
  const { tools } = await client.listTools();
  const tool = tools.find((listed) => listed.name === name);
  const uri = (tool?._meta?.ui as { resourceUri?: string } | undefined)?.resourceUri;
  if (!tool || !uri) throw new Error(`${name} names no view`);
  const result = await client.callTool({ name, arguments: args });
  const shown = token === undefined ? result : withToken(result, token);
  const read = await client.readResource({ uri });
  const html = read.contents.find((content) => content.mimeType === MIME && "text" in content);
  if (!html || !("text" in html)) throw new Error(`${uri} is not an MCP Apps view`);

  await bridge?.close();
  const frame = document.getElementById("view") as HTMLIFrameElement;
  frame.setAttribute("sandbox", "allow-scripts");
  const loaded = new Promise((done) => (frame.onload = done));
  frame.srcdoc = html.text;
  await loaded;
  const view = frame.contentWindow!;
  bridge = new AppBridge(client, info, { serverTools: {}, logging: {} }, { hostContext: { toolInfo: { tool } } });
  const initialized = new Promise<void>((done) => (bridge!.oninitialized = () => done()));
  await bridge.connect(new PostMessageTransport(view, view));
  await initialized;
  await bridge.sendToolInput({ arguments: args });
  const sentAt = performance.timeOrigin + performance.now();
  await bridge.sendToolResult(shown as never);
  return { result, sentAt, visibleTools: tools.map((listed) => listed.name) };
}

/** `result` with its continuation token replaced by `token`, in its JSON and its text. */
function withToken(result: Record<string, unknown>, token: string) {
  const structured = { ...(result.structuredContent as Record<string, unknown>), continuation_token: token };
  return { ...result, structuredContent: structured, content: [{ type: "text", text: JSON.stringify(structured) }] };
}

(window as unknown as { host: unknown }).host = { run };
