// Bundles the viewer into one self-contained page, the file mcp-light
// serves as its MCP Apps view: esbuild (pinned in package.json) bundles
// src/viewer.ts with the ext-apps SDK, and the bundle goes inline into
// src/index.html. The output depends on the sources and the pinned
// packages alone, so a rebuild gives the same bytes.
//
//   node build.mjs           writes ../mcp-light/src/apps/viewer.html
//   node build.mjs --check   fails when that file is not what a build gives
//   node build.mjs --host D  also bundles the browser test's host page into D
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";

const here = dirname(fileURLToPath(import.meta.url));
const output = join(here, "..", "mcp-light", "src", "apps", "viewer.html");

async function bundle(entry) {
  const built = await esbuild.build({
    entryPoints: [join(here, entry)],
    bundle: true,
    write: false,
    format: "esm",
    target: "es2022",
    platform: "browser",
    minify: true,
    legalComments: "none",
    charset: "utf8",
    logLevel: "warning",
  });
  return built.outputFiles[0].text;
}

// A script inline in HTML ends at the first `</script`, wherever it is.
const inline = (script) => script.replaceAll("</script", "<\\/script");

const args = process.argv.slice(2);
const viewer = await bundle("src/viewer.ts");
const built = readFileSync(join(here, "src", "index.html"), "utf8").replace("/*BUNDLE*/", () =>
  inline(viewer),
);

if (args[0] === "--check") {
  const committed = readFileSync(output, "utf8");
  if (committed !== built) {
    console.error(
      `viewer: ${output} is not what viewer/build.mjs builds from viewer/src: run \`node viewer/build.mjs\` (after \`npm ci\` in viewer/) and commit the result`,
    );
    process.exit(1);
  }
  console.log(`viewer: the committed bundle is the build's (${built.length} bytes)`);
} else {
  writeFileSync(output, built);
  console.log(`viewer: wrote ${output} (${built.length} bytes)`);
}

if (args[0] === "--host") {
  const dir = args[1];
  mkdirSync(dir, { recursive: true });
  const host = await bundle("test/host.ts");
  writeFileSync(
    join(dir, "host.html"),
    `<!doctype html><html><head><meta charset="utf-8"><title>test host</title></head>` +
      `<body><iframe id="view" style="display:block;border:1px solid #ccc"></iframe>` +
      `<script type="module">${inline(host)}</script></body></html>`,
  );
}
