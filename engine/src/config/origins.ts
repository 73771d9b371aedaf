/**
 * @module config/origins
 * Which browser origins may call the server: the MCP hosts that run in a browser (a built-in list, which
 * HOST_ORIGINS replaces), and the app's own (ALLOWED_ORIGINS), each checked to be an origin and nothing more.
 *
 * Why a built-in list: a host that runs in a browser tab (ChatGPT on the web, claude.ai's connectors, the VS Code
 * and GitHub web editors) sends its page's `Origin` with every request; a server that allows only listed origins
 * refused them all with 403 (reported in several public MCP servers, July-August 2026). These are not rebinding
 * pages: the Origin rule exists so a page the user merely visits cannot drive a server on their machine or network
 * (spec, "Security & Endpoint"), and the Host check, the refusal of `Origin: null` and malformed origins, and
 * loopback pages in development only keep doing that whatever this list holds. Authorization, when on, still
 * decides what any of them may do.
 */

/**
 * The MCP hosts known to call from a browser page, with the `Origin` they send. chatgpt.com: ChatGPT on the web
 * (reported in several servers' issues). claude.ai and claude.com: Claude's web app and connectors (one report of
 * claude.ai's browser connector sending it; others show its servers calling with no Origin, which needs no entry).
 * vscode.dev and github.dev: VS Code for the Web, whose MCP support runs in the page.
 */
export const KNOWN_HOST_ORIGINS: readonly string[] = [
  "https://chatgpt.com",
  "https://claude.ai",
  "https://claude.com",
  "https://vscode.dev",
  "https://github.dev",
];

/** The one value of HOST_ORIGINS that allows no host's origin (an empty value is a configuration problem). */
export const NO_HOST_ORIGINS = "none";

/**
 * Whether a setting's entry is a pattern (`https://*.claude.ai`, `*`) rather than one origin. Why refused, not read:
 * the URL parser takes `*` as a character of a host name, so `https://*.claude.ai` would be kept as that very origin,
 * which no browser ever sends; the server would start healthy with an entry that matches nothing. Why not supported
 * as a pattern: an origin is trusted by being compared exactly (docs/security.md, "Browser origins"), and a subdomain
 * pattern trusts every page of every subdomain, including ones nobody listed on purpose. Each origin is listed.
 */
export const isOriginPattern = (value: string): boolean => value.includes("*");

/**
 * `value` as an origin (`scheme://host[:port]`, as a browser writes it), or undefined when it is more or less
 * than one: a path, a query, userinfo or another scheme than http(s) would never equal a browser's `Origin`, so a
 * setting holding one is a mistake to name, not a rule that silently matches nothing.
 */
export function originOf(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return undefined;
  // "https://A.example/" and "https://a.example:443" name the origin "https://a.example"; "#" or "?" alone too.
  if (url.username || url.password || url.pathname !== "/" || /[?#]/.test(value)) return undefined;
  return url.origin;
}
