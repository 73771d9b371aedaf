/**
 * @module worker/card
 * The MCP Server Card (SEP-2127, a draft extension), served when `createMcpWorker({ serverCard })` turns it on: a
 * public JSON document that tells a client or a registry, before it connects, which server this is and how to reach
 * it. Shape: the extension's `schema.ts` (modelcontextprotocol/experimental-ext-server-card, `v1`, pre-release);
 * serving: the extension's `docs/discovery.md` (CORS open to every origin, cache headers, a strong ETag and 304s).
 *
 * Why nothing here is written by hand: the card is built from `server.info` and `servedVersions`, what
 * `server/discover` and `initialize` tell a connected client, so the two cannot disagree. Capabilities and extensions
 * are left out on purpose: the draft keeps them to live negotiation, because here they depend on the client (views),
 * the Worker's bindings (tasks, skills, hubs) and the caller. Authorization is not described either: clients learn it
 * from the 401 and the Protected Resource Metadata it points to, and the card's only tool for it (a header the user
 * types in) would be wrong for OAuth, whose tokens the client obtains itself.
 *
 * Why no domain-level catalog (`/.well-known/ai-catalog.json`, once `/.well-known/mcp/catalog.json`): it speaks for
 * the whole domain, which a Worker on a route of a shared domain does not own, and its entry's identifier
 * (`urn:air:<publisher domain>:...`) cannot be derived from the server's name. The domain's owner publishes it.
 */
import type { Config } from "../config/config";
import type { ServerCardRepository } from "../config/options";
import type { HttpExchange } from "../http/exchange";
import { accepts } from "../http/guards";
import { documentAnswer, refuseUnlessRead } from "../http/read-only";
import type { McpServer, ServerDefinition } from "../server/server";
import { base64url } from "../util/encoding";
import { memoize } from "../util/memo";
import { servedVersions } from "../wire/types";

/**
 * Both paths the draft has named: `<streamable-http-url>/server-card`, the one it reserves now, and the older
 * well-known one that xmcp and several scanners still read. The card is the same document on both.
 */
export const CARD_PATHS = ["/mcp/server-card", "/.well-known/mcp/server-card.json"] as const;

const SCHEMA = "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json";
const MEDIA_TYPE = "application/mcp-server-card+json";
/** The schema's `name` pattern: reverse DNS, one slash; 3 to 200 characters. */
const CARD_NAME = /^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/;
/** A version range, which the schema refuses as a version (`^1.2.3`, `~1.2`, `>=1`, `1.x`, `1.*`, `1 - 2`, `1 || 2`). */
const VERSION_RANGE = /^[\^~<>=]|\|\||\s|(^|\.)[xX*](\.|$)/;
/** Most origins one isolate keeps a card for (a Worker has one or two: workers.dev and a custom domain). */
const MAX_ORIGINS = 4;

/** What the card adds to the server's own declarations, once checked; undefined when the card is off. */
export interface CardOptions {
  repository?: ServerCardRepository;
}

/** Characters as the JSON Schema counts them (`maxLength`): code points, not UTF-16 units. */
const characters = (text: string) => [...text].length;
const isWebUrl = (value: unknown) => typeof value === "string" && URL.canParse(value) && /^https?:$/.test(new URL(value).protocol);

/**
 * Checks the server's identity at startup: `websiteUrl` always (it goes into `serverInfo`), and, with the card on,
 * everything the card's schema requires of the fields it copies. Returns the card's options, undefined when it is off.
 * @throws An Error naming the first field the card could not carry.
 */
export function checkServerIdentity(
  info: Pick<ServerDefinition, "name" | "version" | "title" | "description" | "websiteUrl">,
  option: boolean | CardOptions | undefined,
): CardOptions | undefined {
  if (info.websiteUrl !== undefined && !isWebUrl(info.websiteUrl))
    throw new Error("createMcpWorker: websiteUrl must be an http or https URL");
  if (!option) return undefined;
  const problem = (what: string) => new Error(`createMcpWorker: serverCard needs ${what}`);
  const { name, version, title, description } = info;
  if (!CARD_NAME.test(name) || characters(name) < 3 || characters(name) > 200) {
    throw problem(`a reverse-DNS server name with one slash, 3 to 200 characters, such as "io.github.you/notes" (got "${name}")`);
  }
  if (characters(version) > 255 || VERSION_RANGE.test(version))
    throw problem(`an exact version of at most 255 characters (got "${version}")`);
  if (description === undefined || characters(description) < 1 || characters(description) > 100) {
    throw problem("a description of 1 to 100 characters (the server's `description`)");
  }
  if (title !== undefined && (characters(title) < 1 || characters(title) > 100)) throw problem("a title of 1 to 100 characters");
  const repository = option === true ? undefined : option.repository;
  if (repository && (!isWebUrl(repository.url) || typeof repository.source !== "string" || repository.source === "")) {
    throw problem('repository.url to be an http or https URL and repository.source a name such as "github"');
  }
  return repository ? { repository } : {};
}

interface CardDocument {
  body: string;
  /** The SHA-256 of the body, base64url: the strong validator both representations derive their ETag from. */
  digest: string;
}

async function cardDocument(server: McpServer, options: CardOptions, config: Config, origin: string): Promise<CardDocument> {
  const { name, version, title, description, websiteUrl, icons } = server.info;
  const card = {
    $schema: SCHEMA,
    name,
    version,
    description,
    ...(title && { title }),
    ...(websiteUrl && { websiteUrl }),
    ...(options.repository && { repository: options.repository }),
    ...(icons && { icons }),
    // Why the request's origin is safe to name: every card request has passed checkHost (worker/router.ts).
    remotes: [{ type: "streamable-http", url: `${origin}/mcp`, supportedProtocolVersions: servedVersions(config.legacyClients) }],
  };
  const body = JSON.stringify(card);
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(body));
  return { body, digest: base64url(digest) };
}

/** Headers of every card answer, 200 and 304 alike. Why `*`: the card is public, read-only, and carries no credential. */
const CARD_HEADERS = {
  "cache-control": "public, max-age=3600",
  vary: "Accept",
  "access-control-allow-origin": "*",
  "access-control-expose-headers": "ETag",
};
/** A browser's preflight for a conditional GET (If-None-Match is not a CORS-safelisted header); cached 600 s. */
const PREFLIGHT = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "GET, HEAD",
  "access-control-allow-headers": "Content-Type, If-None-Match",
  "access-control-max-age": "600",
};

/** Whether an If-None-Match value names `etag` (weak comparison, RFC 9110 §13.1.2) or is `*`. */
function matches(ifNoneMatch: string | null, etag: string): boolean {
  const tags = (ifNoneMatch ?? "").split(",").map((tag) => tag.trim());
  return tags.some((tag) => tag === "*" || tag.replace(/^W\//, "") === etag);
}

/**
 * The card's route: GET and HEAD answer the card (304 when If-None-Match names it), OPTIONS the preflight, any other
 * method 405. The document is built once per configuration and origin, then every request reuses its bytes and ETag.
 */
export function serverCardRoute(server: McpServer, options: CardOptions): (exchange: HttpExchange) => Promise<Response> {
  const documents = memoize((_config: Config) => new Map<string, Promise<CardDocument>>());
  return async ({ request, config }) => {
    if (request.method === "OPTIONS") return new Response(null, { status: 204, headers: PREFLIGHT });
    const refused = refuseUnlessRead(request);
    if (refused) return refused;
    const origin = new URL(request.url).origin;
    const known = documents(config);
    let document = known.get(origin);
    if (!document) {
      document = cardDocument(server, options, config, origin);
      if (known.size < MAX_ORIGINS) known.set(origin, document);
    }
    const { body, digest } = await document;
    // The card's own media type for a client that accepts it (the draft's), plain JSON for one that asks for that.
    const type = accepts(request, MEDIA_TYPE) ? MEDIA_TYPE : "application/json";
    // Why each type has its own tag: a cache keeps one response per Accept (Vary), and a 304 refreshes the stored
    // response whose tag it names; a shared tag could hand a client the other type.
    const etag = type === MEDIA_TYPE ? `"${digest}"` : `"${digest}.json"`;
    if (matches(request.headers.get("if-none-match"), etag)) return new Response(null, { status: 304, headers: { ...CARD_HEADERS, etag } });
    return documentAnswer(request, body, { headers: { ...CARD_HEADERS, etag, "content-type": type } });
  };
}
