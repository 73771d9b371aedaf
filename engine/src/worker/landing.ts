/**
 * @module worker/landing
 * `GET /`: a page for a person who opens the server's URL in a browser. It names the server, shows what an
 * anonymous caller may use, the endpoint URL and copy-paste connection snippets. No secrets, no settings; with
 * authorization on, it lists nothing (an anonymous caller may use nothing) and says a sign-in is needed.
 */

import type { Config } from "../config/config";
import type { McpServer } from "../server/server";
import { escapeHtml } from "../util/html";

const item = (name: string, description?: string) =>
  `<li><code>${escapeHtml(name)}</code>${description ? ` <span>${escapeHtml(description)}</span>` : ""}</li>`;

function snippets(endpoint: string, name: string): [string, string][] {
  const id = name.replace(/[^A-Za-z0-9_-]/g, "-");
  const json = (value: unknown) => JSON.stringify(value, null, 2);
  return [
    [
      "Claude Desktop (claude_desktop_config.json, through mcp-remote)",
      // mcp-remote refuses plain http unless told: only a local endpoint is served over http.
      json({
        mcpServers: { [id]: { command: "npx", args: ["mcp-remote", endpoint, ...(endpoint.startsWith("http:") ? ["--allow-http"] : [])] } },
      }),
    ],
    ["Cursor (.cursor/mcp.json)", json({ mcpServers: { [id]: { url: endpoint } } })],
    ["VS Code (.vscode/mcp.json)", json({ servers: { [id]: { type: "http", url: endpoint } } })],
    ["MCP Inspector", `npx @modelcontextprotocol/inspector@2.12.0 --cli ${endpoint} --protocol-era modern --method tools/list`],
    [
      "curl (server/discover)",
      `curl -s ${endpoint} -H 'content-type: application/json' -H 'accept: application/json, text/event-stream' \\\n  -H 'mcp-protocol-version: 2026-07-28' -H 'mcp-method: server/discover' \\\n  -d '{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}'`,
    ],
  ];
}

/** How a person gets access in the current authorization mode (only called when authorization is on). */
function signInNote(config: Config): string {
  if (config.authServer) {
    const upstream = config.authServer.login === "github" ? "GitHub" : "your organisation's identity provider";
    return `This server requires authorization. Add the endpoint below to your MCP client (in Claude: Settings, Connectors, Add custom connector); it opens a browser where you sign in with ${upstream} and approve the client, then it lists what your account may use.`;
  }
  return "This server requires authorization: connect with an MCP client that signs in, and it will list what your account may use.";
}

export function landingPage(request: Request, server: McpServer, config: Config): Response {
  const endpoint = `${new URL(request.url).origin}/mcp`;
  const { name, title, version, description } = server.info;
  const open = !config.auth && !config.authServer;
  const tools = [...server.tools.values()].map((tool) => item(tool.name, tool.title ?? tool.description)).join("");
  const resourceItems = [
    ...[...server.resources.fixed.values()].map((resource) => item(resource.uri, resource.title ?? resource.description ?? "")),
    ...[...server.resources.templates.values()].map((template) => item(template.uriTemplate, template.title ?? template.description ?? "")),
  ].join("");
  const prompts = [...server.prompts.values()].map((prompt) => item(prompt.name, prompt.title ?? prompt.description)).join("");
  const section = (heading: string, items: string) => (items ? `<h2>${heading}</h2><ul>${items}</ul>` : "");
  const nonce = crypto.randomUUID();

  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title ?? name)} · MCP server</title>
<style>
body{font:16px/1.5 system-ui,sans-serif;max-width:52rem;margin:2rem auto;padding:0 1rem;color:#1d1d1f}
h1{margin-bottom:0}.sub{color:#555;margin-top:.25rem}
code,pre{font-family:ui-monospace,monospace;font-size:.9em}
pre{background:#f4f4f6;padding:.75rem;border-radius:6px;overflow-x:auto;white-space:pre-wrap;word-break:break-all}
.endpoint{display:flex;gap:.5rem;align-items:center}.endpoint code{background:#eef;padding:.25rem .5rem;border-radius:4px}
li span{color:#555}button{cursor:pointer}.note{background:#fff7e0;padding:.5rem .75rem;border-radius:6px}
</style>
</head>
<body>
<h1>${escapeHtml(title ?? name)}</h1>
<p class="sub">Model Context Protocol server · version ${escapeHtml(version)} · speaks 2026-07-28 and the 2025 revisions</p>
${description ? `<p>${escapeHtml(description)}</p>` : ""}
<h2>Endpoint</h2>
<p class="endpoint"><code id="endpoint">${escapeHtml(endpoint)}</code> <button type="button" data-copy="endpoint">Copy</button></p>
${
  open
    ? section("Tools", tools) + section("Resources", resourceItems) + section("Prompts", prompts)
    : `<p class="note">${escapeHtml(signInNote(config))}</p>`
}
<h2>Connect</h2>
${snippets(endpoint, name)
  .map(
    ([label, text], index) =>
      `<h3>${escapeHtml(label)}</h3><pre id="snippet-${index}">${escapeHtml(text)}</pre><button type="button" data-copy="snippet-${index}">Copy</button>`,
  )
  .join("\n")}
<script nonce="${nonce}">
for(const b of document.querySelectorAll("button[data-copy]"))b.addEventListener("click",async()=>{
try{await navigator.clipboard.writeText(document.getElementById(b.dataset.copy).textContent);b.textContent="Copied"}catch{b.textContent="Select and copy"}});
</script>
</body>
</html>`;
  return new Response(html, {
    headers: {
      "content-type": "text/html; charset=utf-8",
      // Why: the page runs one inline script of its own and nothing else, and must not be framed.
      "content-security-policy": `default-src 'none'; style-src 'unsafe-inline'; script-src 'nonce-${nonce}'; frame-ancestors 'none'; base-uri 'none'`,
      "x-content-type-options": "nosniff",
      "referrer-policy": "no-referrer",
      "cache-control": "no-store",
    },
  });
}

/**
 * `GET /` while the configuration is invalid: says which settings are wrong (by name, never by value) and how to
 * fix them, so `npx wrangler dev` without `npm run dev`'s development mode does not just answer 503 everywhere.
 */
export function unavailablePage(problems: string[]): Response {
  const html = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>MCP server: configuration invalid</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:52rem;margin:2rem auto;padding:0 1rem}</style></head>
<body>
<h1>This MCP server is not configured yet</h1>
<p>Every request to <code>/mcp</code> answers 503 until these settings are fixed:</p>
<ul>${problems.map((problem) => `<li>${escapeHtml(problem)}</li>`).join("")}</ul>
<p>Locally, run <code>npm run dev</code> (development mode signs with a built-in key), or put
<code>STATE_KEYS</code> in <code>.dev.vars</code>. Deployed, set it with <code>wrangler secret put STATE_KEYS</code>.
docs/configuration.md lists every setting.</p>
</body>
</html>`;
  return new Response(html, {
    status: 503,
    headers: {
      "content-type": "text/html; charset=utf-8",
      "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
      "x-content-type-options": "nosniff",
      "cache-control": "no-store",
    },
  });
}
