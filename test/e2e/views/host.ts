/// <reference lib="dom" />
/**
 * A minimal MCP Apps host for the browser test: renders a view in a sandboxed iframe (scripts only: its origin is
 * `null`) under a CSP built from the view's `_meta.ui.csp`, and bridges it with the ext-apps host side (`AppBridge`).
 * Every MCP request the view makes goes to `window.mcpRequest`, which the test exposes from Node (the host's client).
 *
 * It also keeps the record a test needs to measure a view's traffic: every tool call the view made through it
 * (`window.viewCalls`), and `window.settled()`, which resolves once the view has nothing in flight.
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
    /** Replaces the view on the page (if any) with a new one, and sends it the tool's input and result. */
    startView(start: ViewStart): Promise<void>;
    setTheme(theme: "light" | "dark"): Promise<void>;
    /** Sends the view a tool result, as a host does with the results of other calls made while the view is shown. */
    forwardToolResult(result: Record<string, unknown>): Promise<void>;
    /** The name of every tool the view called through the host, in order. */
    viewCalls: string[];
    /** The result of the view's last tool call. */
    lastViewResult?: Record<string, unknown>;
    /** Also send the view the result of each of its own calls, before answering the call (hosts may forward them). */
    forwardBeforeAnswer: boolean;
    /** Resolves once the view has no call in flight and starts none: every call it made so far has been answered. */
    settled(): Promise<void>;
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
let inFlight = 0;
const whenIdle: (() => void)[] = [];
window.viewCalls = [];
window.forwardBeforeAnswer = false;

/**
 * Counts a call as ended in the next task, once its answer is on its way to the view (the bridge posts it in
 * this one). A MessageChannel, not a timer: a test may have paused the page's clock.
 */
const nextTask = new MessageChannel();
const endedCalls: (() => void)[] = [];
nextTask.port1.onmessage = () => {
  endedCalls.shift()?.();
};
function callEnded(): void {
  endedCalls.push(() => {
    inFlight--;
    if (inFlight === 0) for (const resolve of whenIdle.splice(0)) resolve();
  });
  nextTask.port2.postMessage(null);
}

window.startView = async ({ html, csp, toolInput, toolResult, theme }) => {
  await bridge?.close();
  document.querySelector("iframe")?.remove();
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
  bridge.oncalltool = async (params) => {
    window.viewCalls.push(params.name);
    inFlight++;
    try {
      const result = await window.mcpRequest("tools/call", params);
      window.lastViewResult = result;
      if (window.forwardBeforeAnswer) await bridge!.sendToolResult(result);
      return result;
    } finally {
      callEnded();
    }
  };
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

window.forwardToolResult = async (result) => {
  await bridge!.sendToolResult(result as never);
};

window.settled = async () => {
  // Why a ping: the view answers it after every message it sent before it (one window posts to another in order), so
  // by then every call it started has reached oncalltool. Sent only when nothing is in flight, so the view has
  // already read every answer (and started any call that follows one) when it answers. No timer: a test may have
  // paused the page's clock.
  for (;;) {
    if (inFlight > 0) await new Promise<void>((resolve) => whenIdle.push(resolve));
    const started = window.viewCalls.length;
    await bridge!.request({ method: "ping" });
    if (inFlight === 0 && window.viewCalls.length === started) return;
  }
};
