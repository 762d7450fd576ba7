// The browser test's host: a page that speaks MCP Apps as a chat client
// would. It connects to the server over Streamable HTTP declaring the
// extension, calls a tool, reads the `ui://` resource the tool names, and
// renders it in a sandboxed iframe through ext-apps' AppBridge, which
// hands the view the tool's result and carries its tool calls back. As a
// chat client does, it sizes the frame to the height the view reports.
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
/** The last size the view reported, and how many reports it made. */
let reported: { width?: number; height?: number; reports: number } = { reports: 0 };

/** How a run hands the view its result. */
interface Options {
  /** The result's continuation token replaced by this one, as if it had expired or been emptied. */
  token?: string;
  /** Whether the host context names the tool that answered; the spec leaves it optional. */
  toolInfo?: boolean;
  /** The frame's width in pixels (1100 unless told). */
  width?: number;
}

/**
 * Calls `name` with `args` and shows its view; answers what the model read,
 * what the view was handed, and when.
 */
async function run(name: string, args: Record<string, unknown>, options: Options = {}) {
  const client = await connected;
  const { tools } = await client.listTools();
  const tool = tools.find((listed) => listed.name === name);
  const uri = (tool?._meta?.ui as { resourceUri?: string } | undefined)?.resourceUri;
  if (!tool || !uri) throw new Error(`${name} names no view`);
  const result = await client.callTool({ name, arguments: args });
  const shown = options.token === undefined ? result : withToken(result, options.token);
  const read = await client.readResource({ uri });
  const html = read.contents.find((content) => content.mimeType === MIME && "text" in content);
  if (!html || !("text" in html)) throw new Error(`${uri} is not an MCP Apps view`);

  await bridge?.close();
  reported = { reports: 0 };
  const frame = document.getElementById("view") as HTMLIFrameElement;
  frame.setAttribute("sandbox", "allow-scripts");
  frame.style.width = `${options.width ?? 1100}px`;
  frame.style.height = "200px";
  const loaded = new Promise((done) => (frame.onload = done));
  frame.srcdoc = html.text;
  await loaded;
  const view = frame.contentWindow!;
  const hostContext = options.toolInfo === false ? {} : { toolInfo: { tool } };
  bridge = new AppBridge(client, info, { serverTools: {}, logging: {} }, { hostContext });
  bridge.onsizechange = ({ width, height }) => {
    reported = { width, height, reports: reported.reports + 1 };
    if (height !== undefined) frame.style.height = `${height}px`;
  };
  const initialized = new Promise<void>((done) => (bridge!.oninitialized = () => done()));
  await bridge.connect(new PostMessageTransport(view, view));
  await initialized;
  await bridge.sendToolInput({ arguments: args });
  const sentAt = performance.timeOrigin + performance.now();
  await bridge.sendToolResult(shown as never);
  return { result, shown, sentAt, visibleTools: tools.map((listed) => listed.name) };
}

/** `result` with its continuation token replaced by `token`, in its JSON and its text. */
function withToken(result: Record<string, unknown>, token: string) {
  const structured = { ...(result.structuredContent as Record<string, unknown>), continuation_token: token };
  return { ...result, structuredContent: structured, content: [{ type: "text", text: JSON.stringify(structured) }] };
}

(window as unknown as { host: unknown }).host = { run, reported: () => reported };
