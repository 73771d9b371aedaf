/**
 * The fast-check generators (arbitraries) behind the fuzz properties: hostile and plausible JSON-RPC envelopes,
 * `_meta`, capabilities, tool arguments, URIs, ids, and the headers a client would derive from a body. Strings
 * include characters above U+00FF and above U+FFFF (surrogate pairs) wherever a value is stored or forwarded.
 */
import fc from "fast-check";
import { type Json, MODERN, meta } from "../helpers/rpc";
// ---------------------------------------------------------------------------------------------------------------
// Arbitraries
// ---------------------------------------------------------------------------------------------------------------

export const ABSENT = undefined;
/** Present with probability 1 - 1/absentOneIn; absent keys are dropped when the object is serialized. */
export const maybe = <T>(arbitrary: fc.Arbitrary<T>, absentOneIn = 2) => fc.option(arbitrary, { freq: absentOneIn, nil: ABSENT });
/** An object with exactly these own keys, `__proto__` included as a plain own key (as JSON.parse makes it). */
export function objectOf(entries: [string, unknown][]): Json {
  const object: Json = {};
  for (const [key, value] of entries) Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
  return object;
}
/**
 * Characters from every storage class that matters: ASCII, Latin-1 (one byte each in V8's serialisation), the rest
 * of the BMP (two bytes each; this is what once let one listen filter break the shared hub) and astral characters
 * (surrogate pairs: two UTF-16 units, four UTF-8 bytes).
 */
export const wideChar = fc
  .oneof(
    fc.integer({ min: 0x20, max: 0x7e }),
    fc.integer({ min: 0xa0, max: 0xff }),
    fc.integer({ min: 0x100, max: 0xd7ff }),
    fc.integer({ min: 0x10000, max: 0x10ffff }),
  )
  .map((code) => String.fromCodePoint(code));
/** A string of characters from every storage class, short or near the 2,048-unit URI limit. */
export const wideString = fc.oneof(
  { weight: 4, arbitrary: fc.string({ unit: wideChar, maxLength: 40 }) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.integer({ min: 1_000, max: 2_040 }), wideChar)
      .map(([length, last]) => `${"x".repeat(length - last.length)}${last}`),
  },
);
/** URIs that cost the most as stored: a scheme, then characters above U+00FF or U+FFFF, up to 2,048 units. */
export const wideUri = wideString.map((rest) => `fixture://values/${rest}`.slice(0, 2_048));
export const printable = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)), maxLength: 40 });
export const anyString = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: "grapheme", maxLength: 20 }),
  fc.string({ unit: "binary", maxLength: 20 }),
  fc.string({ unit: wideChar, maxLength: 20 }),
);
export const HOSTILE_KEYS = [
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "valueOf",
  "hasOwnProperty",
  "__defineGetter__",
  "isAdmin",
  "polluted",
];
export const key = fc.oneof(
  { weight: 2, arbitrary: fc.constantFrom(...HOSTILE_KEYS) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      "text",
      "n",
      "list",
      "map",
      "item",
      "key",
      "value",
      "query",
      "keys",
      "limit",
      "focus",
      "kind",
      "steps",
      "what",
      "uri",
    ),
  },
  { weight: 3, arbitrary: anyString },
);
/**
 * A well-formed key of the fixture's value store (test/helpers/fixture.ts) that nobody stored: 24 random characters
 * of the key alphabet (about 124 bits), where the tests store under short readable keys.
 */
export const storeKey = fc.stringMatching(/^[a-z0-9-]{24}$/);
/**
 * Task ids nobody minted, in every shape one could take: 128 random bits (the shape before ids were signed), and
 * the signed shape `<kid>.<nonce>.<tag>` with the tests' key id ("test", vitest.config.ts) or any other, its tag
 * made up (one chance in 2^128 of being right).
 */
export const unmintedTaskId = fc.oneof(
  fc.stringMatching(/^[A-Za-z0-9_-]{22}$/),
  fc.stringMatching(/^test\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{22}$/),
  fc.stringMatching(/^[A-Za-z0-9_-]{1,16}\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{22}$/),
);
export const leaf = fc.oneof(
  anyString,
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom(Number.MAX_SAFE_INTEGER + 2, -0, 1e308, 0.1),
  storeKey,
  fc.constant({ polluted: true, isAdmin: true }),
);
/** Any JSON value, hostile keys included, a few levels deep. */
export const value: fc.Arbitrary<unknown> = fc.letrec<{ node: unknown }>((tie) => ({
  node: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    leaf,
    fc.array(tie("node"), { maxLength: 4 }),
    fc.array(fc.tuple(key, tie("node")), { maxLength: 5 }).map(objectOf),
  ),
})).node;
export const hostileObject = fc.array(fc.tuple(key, value), { maxLength: 6 }).map(objectOf);
/** Wraps a value in `levels` objects or arrays. */
export const nest = (inner: unknown, levels: number, asArray: boolean) => {
  let node = inner;
  for (let i = 0; i < levels; i++) node = asArray ? [node] : { a: node };
  return node;
};

export const METHODS = [
  "server/discover",
  "tools/list",
  "tools/call",
  "resources/list",
  "resources/templates/list",
  "resources/read",
  "prompts/list",
  "prompts/get",
  "completion/complete",
  "subscriptions/listen",
  "initialize",
  "ping",
  "logging/setLevel",
  "resources/subscribe",
  "resources/unsubscribe",
  "notifications/initialized",
  "notifications/cancelled",
  "notifications/progress",
  "sampling/createMessage",
  "elicitation/create",
];
/** The fuzz server's own tools (properties.test.ts), then the fixture's with its value store (test/helpers/fixture.ts). */
export const TOOL_NAMES = [
  "echo_loose",
  "echo_strict",
  "echo_record",
  "asker",
  "echo",
  "publish",
  "put",
  "get",
  "find",
  "remove",
  "tidy",
  "ask",
  "log",
  "progress",
];
export const id = fc.oneof(
  { weight: 12, arbitrary: fc.integer() },
  { weight: 6, arbitrary: fc.string({ maxLength: 30 }) },
  {
    weight: 2,
    arbitrary: fc.constantFrom<unknown>(null, 1.5, -0, 1e300, Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER + 2, true, {}, [], ""),
  },
  { weight: 1, arbitrary: value },
);
export const method = fc.oneof(
  { weight: 16, arbitrary: fc.constantFrom(...METHODS) },
  { weight: 2, arbitrary: anyString },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(1, null, {}, [], "", "x".repeat(5_000), "TOOLS/LIST", "tools/call ") },
);
export const capabilities = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.constantFrom<unknown>(
      {},
      { elicitation: {} },
      { elicitation: { form: {}, url: {} }, sampling: { tools: {} }, roots: {} },
      { sampling: {} },
    ),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      elicitation: maybe(fc.constantFrom<unknown>(null, {}, { url: {} }, { form: null }, "yes", 0, [])),
      sampling: maybe(fc.constantFrom<unknown>(null, {}, { tools: {} }, 1)),
      roots: maybe(fc.constantFrom<unknown>(null, {}, false)),
    }),
  },
  { weight: 1, arbitrary: value },
);
/** `_meta` as a client might send it: usually close to valid, each part sometimes wrong or missing. */
export const metaParts = fc.record({
  version: fc.oneof(
    { weight: 6, arbitrary: fc.constant<unknown>(MODERN) },
    {
      weight: 1,
      arbitrary: fc.constantFrom<unknown>("2025-11-25", "2025-03-26", "v999", "", " 2026-07-28", "2026-07-28\u00e9", 20260728, null, {}),
    },
    { weight: 1, arbitrary: anyString },
    { weight: 1, arbitrary: fc.constant<unknown>(ABSENT) },
  ),
  capabilities: fc.oneof({ weight: 6, arbitrary: capabilities }, { weight: 1, arbitrary: fc.constant<unknown>(ABSENT) }),
  clientInfo: maybe(fc.oneof(fc.constant<unknown>({ name: "c", version: "1" }), value)),
  logLevel: maybe(fc.oneof(fc.constantFrom<unknown>("debug", "info", "emergency", "loud", "", 3, null)), 4),
  progressToken: maybe(fc.oneof(fc.constantFrom<unknown>("p", 7, 1.5, null, {}, Number.MAX_SAFE_INTEGER + 2), anyString), 4),
  extra: maybe(hostileObject, 4),
});
export type MetaParts = {
  version: unknown;
  capabilities: unknown;
  clientInfo: unknown;
  logLevel: unknown;
  progressToken: unknown;
  extra: unknown;
};
export function metaOf(parts: MetaParts): Json {
  const entries: [string, unknown][] = [];
  if (parts.extra !== ABSENT) entries.push(...Object.entries(parts.extra as Json));
  if (parts.version !== ABSENT) entries.push(["io.modelcontextprotocol/protocolVersion", parts.version]);
  if (parts.capabilities !== ABSENT) entries.push(["io.modelcontextprotocol/clientCapabilities", parts.capabilities]);
  if (parts.clientInfo !== ABSENT) entries.push(["io.modelcontextprotocol/clientInfo", parts.clientInfo]);
  if (parts.logLevel !== ABSENT) entries.push(["io.modelcontextprotocol/logLevel", parts.logLevel]);
  if (parts.progressToken !== ABSENT) entries.push(["progressToken", parts.progressToken]);
  return objectOf(entries);
}
export const metaValue = fc.oneof(
  { weight: 8, arbitrary: capabilities.map((clientCapabilities) => meta(clientCapabilities as Json)) },
  { weight: 4, arbitrary: metaParts.map(metaOf) },
  { weight: 1, arbitrary: value },
);

export const uri: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    "fixture://readme",
    "test://text",
    "test://ask",
    "test://items/a%20b",
    "test://items/%E0%A4%A",
    "fixture://values/aaaaaaaaaaaaaaaaaaaaaaaa",
    "fixture://values/Not A Key",
    "",
    "test://items/",
  ),
  anyString,
);
export const params = fc.oneof(
  {
    weight: 12,
    arbitrary: fc.record({
      _meta: maybe(metaValue, 10),
      name: maybe(fc.oneof(fc.constantFrom(...TOOL_NAMES, "greet", "ask_prompt", "brief", "recall"), anyString), 2),
      arguments: maybe(fc.oneof(hostileObject, value, fc.record({ key: fc.oneof(storeKey, anyString), focus: maybe(anyString) })), 2),
      uri: maybe(uri, 3),
      cursor: maybe(fc.oneof(anyString, fc.integer(), fc.constantFrom("bzUw", "bzA", "o50")), 6),
      requestState: maybe(fc.oneof(anyString, fc.integer()), 6),
      inputResponses: maybe(value, 6),
      notifications: maybe(
        fc.oneof(
          fc.record({
            toolsListChanged: maybe(fc.boolean()),
            promptsListChanged: maybe(fc.boolean()),
            resourceSubscriptions: maybe(fc.array(fc.oneof(anyString, wideUri), { maxLength: 8 })),
          }),
          value,
        ),
        3,
      ),
      protocolVersion: maybe(fc.oneof(fc.constantFrom<unknown>("2025-11-25", "2025-06-18", "2025-03-26", "2099-01-01", MODERN), value), 3),
      capabilities: maybe(capabilities, 3),
      clientInfo: maybe(value, 4),
      level: maybe(fc.oneof(fc.constantFrom("debug", "error", "loud"), anyString), 6),
      ref: maybe(
        fc.oneof(
          fc.constantFrom<unknown>(
            { type: "ref/resource", uri: "test://items/{id}" },
            { type: "ref/resource", uri: "fixture://values/{key}" },
            { type: "ref/prompt", name: "greet" },
            { type: "ref/prompt", name: "recall" },
          ),
          value,
        ),
        6,
      ),
      argument: maybe(
        fc.oneof(fc.record({ name: fc.constantFrom("id", "name", "key", "focus", "__proto__"), value: anyString }), value),
        6,
      ),
      requestId: maybe(id, 6),
      extra: maybe(value, 6),
    }),
  },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(null, [], "params", 42, true) },
);
export const compact = (record: Json) => objectOf(Object.entries(record).filter(([, field]) => field !== ABSENT));
/** A request a client could well send, for every method the servers know (and a few they do not). */
export const plausible: fc.Arbitrary<{ method: string; params: Json; notification?: boolean }> = fc.oneof(
  fc
    .constantFrom("server/discover", "tools/list", "resources/list", "resources/templates/list", "prompts/list", "ping", "no/such/method")
    .chain((name) =>
      fc.record({ cursor: maybe(fc.constantFrom("bzUw", "bzE", "nonsense"), 4) }).map((p) => ({ method: name, params: compact(p) })),
    ),
  fc
    .record({
      name: fc.constantFrom(...TOOL_NAMES),
      arguments: maybe(
        fc.oneof(
          hostileObject,
          fc.record({ text: anyString }),
          fc.record({ key: storeKey, value: wideString }),
          fc.record({
            query: wideString,
            keys: maybe(fc.array(storeKey, { maxLength: 10 })),
            limit: maybe(fc.integer({ min: 1, max: 50 })),
          }),
          fc.constant({ key: "k" }),
        ),
        6,
      ),
    })
    .map((p) => ({ method: "tools/call", params: compact(p) })),
  uri.map((u) => ({ method: "resources/read", params: { uri: u } })),
  fc
    .oneof(
      fc.record({ name: fc.constant("greet"), arguments: maybe(fc.record({ name: anyString })) }),
      fc.record({ name: fc.constant("ask_prompt") }),
      fc.record({
        name: fc.constant("brief"),
        arguments: fc.record({ topic: anyString, tone: maybe(fc.constantFrom("formal", "terse", "loud")) }),
      }),
      fc.record({ name: fc.constant("recall"), arguments: fc.record({ key: fc.oneof(storeKey, anyString), focus: maybe(anyString) }) }),
    )
    .map((p) => ({ method: "prompts/get", params: compact(p) })),
  fc
    .record({
      ref: fc.constantFrom<Json>(
        { type: "ref/resource", uri: "test://items/{id}" },
        { type: "ref/resource", uri: "fixture://values/{key}" },
        { type: "ref/prompt", name: "recall" },
        { type: "ref/prompt", name: "brief" },
        { type: "ref/prompt", name: "nope" },
      ),
      argument: fc.record({ name: fc.constantFrom("id", "key", "focus", "tone", "__proto__", "constructor"), value: anyString }),
      context: maybe(fc.record({ arguments: fc.oneof(fc.record({ key: storeKey }), hostileObject) })),
    })
    .map((p) => ({ method: "completion/complete", params: compact(p) })),
  fc
    .record({
      notifications: fc.record({
        toolsListChanged: maybe(fc.boolean()),
        resourcesListChanged: maybe(fc.boolean()),
        resourceSubscriptions: maybe(fc.array(fc.oneof(anyString, wideUri), { maxLength: 8 })),
      }),
    })
    .map((p) => ({
      method: "subscriptions/listen",
      params: { notifications: compact(p.notifications) },
    })),
  fc
    .record({
      protocolVersion: fc.constantFrom("2025-11-25", "2025-06-18", "2025-03-26", "2099-01-01"),
      capabilities: capabilities,
      clientInfo: maybe(fc.record({ name: wideString, version: wideString })),
    })
    .map((p) => ({ method: "initialize", params: compact(p) })),
  fc.record({ level: fc.constantFrom("debug", "error", "loud") }).map((p) => ({ method: "logging/setLevel", params: p })),
  fc.oneof(uri, wideUri).map((u) => ({ method: "resources/subscribe", params: { uri: u } })),
  fc
    .constantFrom("notifications/initialized", "notifications/cancelled", "notifications/progress", "notifications/whatever")
    .map((name) => ({ method: name, params: { requestId: 1 }, notification: true })),
);
/** One way to spoil a request; several may apply. */
export const corruption = fc.oneof(
  fc.record({
    field: fc.constantFrom("jsonrpc", "id", "method", "params", "_meta", "result", "error", "extra"),
    to: fc.oneof(value, id, method, params, metaValue),
  }),
  fc.record({ field: fc.constantFrom("jsonrpc", "id", "method", "params", "_meta"), to: fc.constant(ABSENT) }),
  fc.record({ field: fc.constantFrom("name", "arguments", "uri", "requestState", "inputResponses", "cursor", "hostile"), to: value }),
);
/** A plausible request with its _meta, spoiled in zero, one or two ways. */
export const envelope = fc
  .tuple(
    plausible,
    id,
    capabilities,
    fc.oneof({ weight: 2, arbitrary: fc.constant([]) }, { weight: 3, arbitrary: fc.array(corruption, { minLength: 1, maxLength: 2 }) }),
  )
  .map(([request, requestId, clientCapabilities, corruptions]) => {
    const message: Json = {
      jsonrpc: "2.0",
      ...(!request.notification && { id: requestId }),
      method: request.method,
      params: objectOf([...Object.entries(request.params), ["_meta", meta(clientCapabilities as Json)]]),
    };
    // Only objects built here are changed: a generated value (which fast-check keeps and reuses) is never mutated,
    // or one case could change another, or even make a value contain itself.
    const ownParams = message.params;
    for (const { field, to } of corruptions) {
      const target = ["jsonrpc", "id", "method", "params", "result", "error", "extra"].includes(field)
        ? message
        : message.params === ownParams
          ? (ownParams as Json)
          : undefined;
      if (!target) continue;
      if (to === ABSENT) delete target[field];
      else
        Object.defineProperty(target, field === "hostile" ? "__proto__" : field, {
          value: to,
          enumerable: true,
          writable: true,
          configurable: true,
        });
    }
    return message;
  });
/** The same message as a 2025 client sends it: no _meta. */
export function withoutMeta<T>(body: T): T {
  const copy = JSON.parse(JSON.stringify(body)) as T;
  for (const message of Array.isArray(copy) ? copy : [copy]) {
    const p = (message as Json | null)?.params;
    if (typeof p === "object" && p !== null) delete (p as Json)._meta;
  }
  return copy;
}

/** A header value as a client must send it: raw when it is safe ASCII, otherwise in the =?base64?...?= form. */
export const sentinel = (value: string) => `=?base64?${new TextEncoder().encode(value).toBase64()}?=`;
export const headerValue = (value: string) =>
  /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/.test(value) && !value.startsWith("=?base64?") ? value : sentinel(value);
/** The MCP headers a conforming client derives from a body. */
export function mirroredHeaders(body: unknown): Record<string, string | undefined> {
  const message = (typeof body === "object" && body !== null && !Array.isArray(body) ? body : {}) as Json;
  const p = (typeof message.params === "object" && message.params !== null ? message.params : {}) as Json;
  const m = (typeof p._meta === "object" && p._meta !== null ? p._meta : {}) as Json;
  const version = m["io.modelcontextprotocol/protocolVersion"];
  const name =
    message.method === "resources/read" ? p.uri : message.method === "tools/call" || message.method === "prompts/get" ? p.name : undefined;
  return {
    "mcp-protocol-version": typeof version === "string" ? headerValue(version) : MODERN,
    "mcp-method": typeof message.method === "string" ? headerValue(message.method) : undefined,
    "mcp-name": typeof name === "string" ? headerValue(name) : undefined,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Shapes that found faults: lone surrogates, and subscriptions that stop short of a resource's handle
// ---------------------------------------------------------------------------------------------------------------

/** One UTF-16 unit from U+D800 to U+DFFF: alone, it is not well-formed Unicode. */
export const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((unit) => String.fromCharCode(unit));
/** Text with a lone surrogate somewhere in it (between ASCII, so it never pairs up). */
export const textWithLoneSurrogate = fc.tuple(printable, loneSurrogate, printable).map(([before, lone, after]) => before + lone + after);
/** Any JSON value with one string (or key) replaced by text holding a lone surrogate, at any depth. */
export const valueWithLoneSurrogate: fc.Arbitrary<unknown> = fc.letrec<{ node: unknown }>((tie) => ({
  node: fc.oneof(
    { depthSize: "small" },
    textWithLoneSurrogate,
    fc.tuple(fc.array(value, { maxLength: 3 }), tie("node"), fc.nat(3)).map(([items, bad, at]) => {
      const copy = [...items];
      copy.splice(Math.min(at, copy.length), 0, bad);
      return copy;
    }),
    fc.tuple(hostileObject, key, tie("node")).map(([object, name, bad]) => objectOf([...Object.entries(object), [name, bad]])),
    fc
      .tuple(hostileObject, textWithLoneSurrogate, value)
      .map(([object, name, inner]) => objectOf([...Object.entries(object), [name, inner]])),
  ),
})).node;
/** A handle as an app mints one: URL-safe random characters. */
export const handleId = fc.stringMatching(/^[A-Za-z0-9_-]{1,24}$/);
/**
 * A subscription string that stops short of naming `handle` (the beginning of a resource URI up to its handle): a
 * strict prefix of it, cut anywhere, sometimes with a trailing `/`. None of these may hear about the resource.
 */
export const shortOf = (handle: string) =>
  fc.tuple(fc.integer({ min: 0, max: handle.length - 1 }), fc.boolean()).map(([cut, slash]) => {
    const prefix = handle.slice(0, cut);
    return slash && !prefix.endsWith("/") ? `${prefix}/` : prefix;
  });

// ---------------------------------------------------------------------------------------------------------------
// Dynamic client registration (RFC 7591): valid registrations spoiled by members over their limits or of odd types
// ---------------------------------------------------------------------------------------------------------------

export const REGISTRATION_REDIRECT = "http://127.0.0.1:9/cb";
/** A registration the server accepts, for the spoilers below to push over a limit. */
export const validRegistration = { client_name: "Fuzz", redirect_uris: [REGISTRATION_REDIRECT], token_endpoint_auth_method: "none" };

/** More than `limit` UTF-16 units (up to `spread` more) of one character of any storage class (an astral one is two). */
const unitsOver = (limit: number, spread = 5_000) =>
  fc
    .tuple(fc.integer({ min: limit + 1, max: limit + spread }), wideChar)
    .map(([units, char]) => char.repeat(Math.ceil(units / char.length)));
/** More than `limit` entries, each made by `entry`. */
const entriesOver = (limit: number, entry: (index: number) => string, max = 500) =>
  fc.integer({ min: limit + 1, max }).map((count) => Array.from({ length: count }, (_, index) => entry(index)));
/** Values of a type no member has: for string members and for arrays of strings alike. */
const oddValue = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.dictionary(printable, fc.integer(), { maxKeys: 3 }),
  fc.array(fc.oneof(fc.integer(), fc.constant(null), fc.array(fc.integer(), { maxLength: 2 })), { minLength: 1, maxLength: 4 }),
);
const URI_MEMBERS = ["client_uri", "logo_uri", "policy_uri", "tos_uri", "jwks_uri"];
const TEXT_MEMBERS: [string, number][] = [
  ["client_name", 200],
  ["scope", 1_024],
  ["software_id", 256],
  ["software_version", 128],
  ...URI_MEMBERS.map((member): [string, number] => [member, 2_048]),
];
const LIST_MEMBERS: [string, string][] = [
  ["grant_types", "authorization_code"],
  ["response_types", "code"],
  ["contacts", "dev@app.example"],
  ["token_endpoint_auth_methods_supported", "none"],
];

/** One way to spoil a registration: the members to set on it. */
const spoiler: fc.Arbitrary<[string, unknown][]> = fc.oneof(
  fc.constantFrom(...TEXT_MEMBERS).chain(([member, limit]) => unitsOver(limit).map((value): [string, unknown][] => [[member, value]])),
  entriesOver(10, (index) => `${REGISTRATION_REDIRECT}/${index}`, 2_000).map((uris): [string, unknown][] => [["redirect_uris", uris]]),
  unitsOver(2_048).map((tail): [string, unknown][] => [["redirect_uris", [`${REGISTRATION_REDIRECT}/${tail}`]]]),
  fc
    .constantFrom(...LIST_MEMBERS)
    .chain(([member, entry]) => entriesOver(10, () => entry).map((list): [string, unknown][] => [[member, list]])),
  unitsOver(320).map((contact): [string, unknown][] => [["contacts", [contact]]]),
  // Language-tagged variants: too many, a tag too long, or a value too long.
  fc
    .integer({ min: 11, max: 200 })
    .map((count) => Array.from({ length: count }, (_, index): [string, unknown] => [`client_name#x-${index}`, "Name"])),
  unitsOver(35, 500).map((tag): [string, unknown][] => [[`client_name#${tag}`, "Name"]]),
  unitsOver(200).map((name): [string, unknown][] => [["client_name#de", name]]),
  // A body over 16 KiB in members the provider does not store (which only the body cap bounds).
  fc.integer({ min: 16_385, max: 200_000 }).map((length): [string, unknown][] => [["software_statement", "s".repeat(length)]]),
  fc
    .constantFrom("client_name", "redirect_uris", "scope", "software_id", "contacts", "grant_types", "client_name#fr", ...URI_MEMBERS)
    .chain((member) => oddValue.map((value): [string, unknown][] => [[member, value]])),
);

/** A valid registration with one to three spoilers applied: every one of these must be refused. */
export const oversizedRegistration = fc
  .array(spoiler, { minLength: 1, maxLength: 3 })
  .map((spoilers) => objectOf([...Object.entries(validRegistration), ...spoilers.flat()]));
