/// <reference lib="dom" />
/**
 * A minimal MCP Apps host for the browser test: renders a view in a sandboxed iframe (scripts only: its origin is
 * `null`) under a CSP built from the view's `_meta.ui.csp`, and bridges it with the ext-apps host side (`AppBridge`).
 * Every MCP request the view makes goes to `window.mcpRequest`, which the test exposes from Node (the host's client).
 */
import { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";

interface ViewStart {
  html: string;
  csp?: { connectDomains?: string[]; resourceDomains?: string[]; frameDomains?: string[]; baseUriDomains?: string[] };
  toolInput: Record<string, unknown>;
  toolResult: Record<string, unknown>;
  theme: "light" | "dark";
}

declare global {
  interface Window {
    mcpRequest(method: string, params: unknown): Promise<any>;
    startView(start: ViewStart): Promise<void>;
    setTheme(theme: "light" | "dark"): Promise<void>;
  }
}

/** The CSP a host applies to a view: nothing but inline code and data: images, plus the origins it declared. */
function contentSecurityPolicy(csp: ViewStart["csp"] = {}): string {
  const list = (domains: string[] | undefined, base: string) => [base, ...(domains ?? [])].join(" ");
  return [
    "default-src 'none'",
    `script-src ${list(csp.resourceDomains, "'unsafe-inline'")}`,
    `style-src ${list(csp.resourceDomains, "'unsafe-inline'")}`,
    `img-src ${list(csp.resourceDomains, "data:")}`,
    `font-src ${list(csp.resourceDomains, "data:")}`,
    `connect-src ${csp.connectDomains?.length ? csp.connectDomains.join(" ") : "'none'"}`,
    `frame-src ${csp.frameDomains?.length ? csp.frameDomains.join(" ") : "'none'"}`,
    `base-uri ${csp.baseUriDomains?.length ? csp.baseUriDomains.join(" ") : "'none'"}`,
  ].join("; ");
}

let bridge: AppBridge | undefined;

window.startView = async ({ html, csp, toolInput, toolResult, theme }) => {
  const iframe = document.createElement("iframe");
  iframe.title = "Notebook view";
  iframe.setAttribute("sandbox", "allow-scripts");
  document.body.append(iframe);

  bridge = new AppBridge(
    null,
    { name: "browser-test-host", version: "1.0.0" },
    { serverTools: {}, serverResources: {}, logging: {} },
    { hostContext: { theme, displayMode: "inline" } },
  );
  bridge.oncalltool = (params) => window.mcpRequest("tools/call", params);
  bridge.onreadresource = (params) => window.mcpRequest("resources/read", params);
  bridge.onloggingmessage = (params) => console.log("view log", JSON.stringify(params));
  bridge.onsizechange = ({ height }) => {
    if (height !== undefined) iframe.style.height = `${height}px`;
  };
  const initialized = new Promise<void>((resolve) => {
    bridge!.oninitialized = () => resolve();
  });
  await bridge.connect(new PostMessageTransport(iframe.contentWindow!, iframe.contentWindow!));

  const policy = `<meta http-equiv="Content-Security-Policy" content="${contentSecurityPolicy(csp)}">`;
  iframe.srcdoc = html.replace(/<head>/i, `<head>${policy}`);
  await initialized;
  await bridge.sendToolInput({ arguments: toolInput });
  await bridge.sendToolResult(toolResult as never);
};

window.setTheme = async (theme) => {
  document.documentElement.style.colorScheme = theme;
  await bridge!.sendHostContextChange({ theme });
};
