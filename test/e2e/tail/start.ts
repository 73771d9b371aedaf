/**
 * Starts the template with tracing observable: `wrangler dev` with two configs, the template's own wrangler.toml
 * (copied to a temporary directory by ../dev-server.ts with `streaming_tail_consumers` added, so users' config never names a test
 * Worker) and the test's tail consumer (./wrangler.toml), which POSTs each invocation's tail events to an HTTP
 * server this module runs on 127.0.0.1; a GET to that server answers every event received so far, so tests in other
 * processes (the end-to-end global setup starts one for all of them) read them too. Why a child process: a streaming
 * tail consumer reaches the template only when both run in one wrangler dev (two `unstable_startWorker`s sharing a
 * dev registry deliver no tail events). What wrangler prints is kept too: tests of the dev server's own behaviour
 * read it, in a process of their own.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { experimental_readRawConfig } from "wrangler";
import { TEST_BINDINGS } from "../../../vitest.config";
import { copyTemplateConfig, exited, root, spawnWranglerDev } from "../dev-server";

/** The engine's own rate limits (on /mcp, on the OAuth endpoints): every other rate-limiting binding is a tool's budget. */
const REQUEST_LIMITERS = ["RATE_LIMITER", "OAUTH_RATE_LIMITER"];

const COLLECTOR = "mcp-trace-collector";

/** One tail event as the consumer receives it (TailStream.TailEvent), after a JSON round trip. */
export interface TailEvent {
  invocationId: string;
  spanContext: { traceId: string; spanId?: string };
  event: { type: string; name?: string; spanId?: string; info?: unknown; [key: string]: unknown };
}

export interface TracedTemplate {
  /** The template's /mcp URL. */
  url: string;
  /** Every tail event received so far, in arrival order. */
  events: TailEvent[];
  /** Where a GET answers `events` as JSON, for tests in another process (`receivedEvents`). */
  eventsUrl: string;
  /** Everything wrangler has printed so far (stdout and stderr, colours removed): the dev server's own messages. */
  output(): string;
  stop(): Promise<void>;
}

export interface RecordedSpan {
  name: string;
  attributes: Record<string, unknown>;
}

/** The spans that describe MCP requests, with their attributes (sent as separate events, keyed by span id). */
export function mcpSpans(events: TailEvent[]): RecordedSpan[] {
  const spans = new Map<string, RecordedSpan>();
  for (const { invocationId, spanContext, event } of events) {
    if (event.type === "spanOpen") spans.set(`${invocationId}/${event.spanId}`, { name: event.name!, attributes: {} });
    if (event.type !== "attributes") continue;
    const span = spans.get(`${invocationId}/${spanContext.spanId}`);
    for (const { name, value } of event.info as { name: string; value: unknown }[]) if (span) span.attributes[name] = value;
  }
  return [...spans.values()].filter((span) => "mcp.method.name" in span.attributes);
}

/**
 * Starts the traced template on a free port and waits until it is ready: for a test file of its own. `main`: a test
 * entry module (one that wraps the template's) to serve in place of the template's own.
 */
export async function startTracedTemplate(main?: string): Promise<TracedTemplate> {
  const { wrangler, events, eventsUrl, stop } = await launch(0, main);
  try {
    const origin = await wrangler.ready;
    return { url: new URL("/mcp", origin).href, events, eventsUrl, output: wrangler.output, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * Starts the traced template on `port` without waiting for it: for the end-to-end global setup, so that the other
 * projects' tests run while wrangler starts. A GET of `<eventsUrl>ready` answers once it is ready (`workerReady`).
 */
export async function launchTracedTemplate(port: number): Promise<TracedTemplate> {
  const { wrangler, events, eventsUrl, stop } = await launch(port);
  // Why caught here: nothing may await it before a test asks, and a failed start is reported through /ready.
  wrangler.ready.catch(() => undefined);
  return { url: `http://127.0.0.1:${port}/mcp`, events, eventsUrl, output: wrangler.output, stop };
}

/**
 * Waits (bounded by wrangler's own start timeout, see ../dev-server.ts) until the traced template behind `eventsUrl`
 * is ready, and fails with what wrangler printed if it could not start.
 */
export async function workerReady(eventsUrl: string): Promise<void> {
  const response = await fetch(new URL("ready", eventsUrl));
  if (!response.ok) throw new Error(`the end-to-end Worker did not start:\n${await response.text()}`);
}

async function launch(port: number, main?: string) {
  const events: TailEvent[] = [];
  let ready: Promise<string> | undefined;
  const collector = await listen(
    createServer((request, response) => {
      if (request.method === "GET" && request.url === "/ready") {
        ready!.then(
          () => response.writeHead(200).end("ready"),
          (error: Error) => response.writeHead(503).end(error.message),
        );
        return;
      }
      if (request.method === "GET") {
        response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(events));
        return;
      }
      let body = "";
      request.setEncoding("utf8");
      request.on("data", (chunk) => (body += chunk));
      request.on("end", () => {
        events.push(...(JSON.parse(body) as TailEvent[]));
        response.writeHead(204).end();
      });
    }),
  );
  const dir = mkdtempSync(join(tmpdir(), "mcp-tracing-"));
  const { rawConfig } = experimental_readRawConfig({ config: join(root, "wrangler.toml") });
  const template = copyTemplateConfig(dir, {
    ...(main && { main }),
    vars: { ...rawConfig.vars, ...TEST_BINDINGS },
    secrets: undefined,
    streaming_tail_consumers: [{ service: COLLECTOR }],
    // Every end-to-end file shares this Worker, from one address: a tool's budget (its own rate-limiting binding,
    // tested in the engine's test/http/budgets.test.ts) would refuse the suite's own calls, the task quota's 11 among
    // them. The request limiters keep their limits.
    ratelimits: (rawConfig.ratelimits as { name: string; simple: { limit: number } }[] | undefined)?.map((binding) =>
      REQUEST_LIMITERS.includes(binding.name) ? binding : { ...binding, simple: { ...binding.simple, limit: 1_000_000 } },
    ),
  });
  const eventsUrl = `http://127.0.0.1:${(collector.address() as AddressInfo).port}/`;
  const consumer = {
    name: COLLECTOR,
    main: join(import.meta.dirname, "worker.ts"),
    compatibility_date: rawConfig.compatibility_date,
    vars: { COLLECTOR_URL: eventsUrl },
  };
  writeFileSync(join(dir, "consumer.json"), JSON.stringify(consumer));
  const wrangler = spawnWranglerDev([
    ...["-c", template, "-c", join(dir, "consumer.json")],
    ...["--ip", "127.0.0.1", "--port", String(port), "--inspector-port", "0"],
    ...["--persist-to", join(dir, "state"), "--show-interactive-dev-session=false"],
  ]);
  ready = wrangler.ready;
  const stop = async () => {
    await exited(wrangler.child);
    await new Promise((done) => collector.close(done));
    rmSync(dir, { recursive: true, force: true });
  };
  return { wrangler, events, eventsUrl, stop };
}

/** Every tail event a traced template's collector has received so far, read from its `eventsUrl`. */
export async function receivedEvents(eventsUrl: string): Promise<TailEvent[]> {
  const response = await fetch(eventsUrl);
  if (!response.ok) throw new Error(`the trace collector answered ${response.status}`);
  return (await response.json()) as TailEvent[];
}

function listen(server: Server): Promise<Server> {
  return new Promise((ready) => server.listen(0, "127.0.0.1", () => ready(server)));
}
