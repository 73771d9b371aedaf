#!/usr/bin/env node
/**
 * `npm run inspector`: the MCP Inspector 2.12.0 (@modelcontextprotocol/inspector) runs the engine's tasks from the
 * command line, no browser: its CLI (`mcp-inspector --cli`) and its connection CLI `mcpdo` (experimental, same
 * package) against the conformance fixture Worker on 127.0.0.1 (./wrangler.toml, as wrangler dev serves it), with
 * its label_items as the task. A recording proxy in front of the Worker shows what went on the wire. Exits non-zero
 * when a check fails.
 *
 * The Inspector needs Node 22.19 or newer (the script says so on an older one). It is installed into ./inspector on
 * first use (./tools.mjs), and keeps its state in a temporary HOME, never the user's ~/.mcp-inspector.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { unstable_startWorker } from "wrangler";
import { buildFixtureSkills } from "./fixture-skills.mjs";
import { installTools, requireNode } from "./tools.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const tools = join(here, "inspector");

requireNode(22, 19, "The MCP Inspector 2.12");
installTools(tools, "node_modules/@modelcontextprotocol/inspector/package.json", "the MCP Inspector");
const node = process.execPath;
const inspectorDir = join(tools, "node_modules/@modelcontextprotocol/inspector");
const CLI = join(inspectorDir, "clients/launcher/build/index.js");
const MCPDO = join(inspectorDir, "clients/mcpdo/build/mcp-bin.js");
const home = mkdtempSync(join(tmpdir(), "inspector-home-"));

/** Runs a command to its end (never blocking this process: the proxy below serves it meanwhile). */
function run(command, args, env = {}) {
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      env: { ...process.env, HOME: home, MCP_INSPECTOR_SECRET_STORE: "file", NO_COLOR: "1", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    const timer = setTimeout(() => child.kill("SIGTERM"), 60_000);
    child.on("exit", (code) => {
      clearTimeout(timer);
      // A result is printed on stdout, an error envelope ({ error: { code, message } }) on stderr.
      resolve({ code, stdout, stderr, json: safeJson(stdout) ?? safeJson(stderr.slice(stderr.indexOf("{"))) });
    });
  });
}

/**
 * A proxy that records each JSON-RPC request (method, Mcp-Name header) and, for JSON answers, the result's
 * resultType and taskId. Streams (SSE) pass through unread.
 */
async function recordingProxy(target) {
  const seen = [];
  const server = createServer(async (request, response) => {
    // A client that hangs up (a listen stream it closes) ends the request to the Worker too.
    const hangUp = new AbortController();
    response.on("close", () => hangUp.abort());
    try {
      let body = "";
      for await (const chunk of request) body += chunk;
      const headers = { ...request.headers };
      delete headers.host;
      delete headers["content-length"];
      const init = { method: request.method, headers, body: request.method === "POST" ? body : undefined, signal: hangUp.signal };
      const answer = await fetch(new URL(request.url, target), init);
      const entry = { method: safeJson(body)?.method, mcpName: request.headers["mcp-name"] };
      if (entry.method) seen.push(entry);
      const passed = [...answer.headers].filter(([name]) => !["content-length", "content-encoding", "transfer-encoding"].includes(name));
      response.writeHead(answer.status, Object.fromEntries(passed));
      if (answer.headers.get("content-type")?.startsWith("application/json")) {
        const text = await answer.text();
        const result = safeJson(text)?.result;
        Object.assign(entry, { resultType: result?.resultType, taskId: result?.taskId, status: result?.status });
        return response.end(text);
      }
      if (!answer.body) return response.end();
      for await (const chunk of answer.body) response.write(chunk);
      response.end();
    } catch {
      response.destroy();
    }
  });
  await new Promise((ready) => server.listen(0, "127.0.0.1", ready));
  return { url: `http://127.0.0.1:${server.address().port}/mcp`, seen, close: () => new Promise((done) => server.close(done)) };
}

function safeJson(text) {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const results = [];
async function check(name, body) {
  try {
    await body();
    results.push({ name, ok: true });
    console.log(`  ok    ${name}`);
  } catch (error) {
    results.push({ name, ok: false });
    console.log(`  FAIL  ${name}\n        ${String(error?.message ?? error).replaceAll("\n", "\n        ")}`);
  }
}

function expect(condition, message, detail) {
  if (!condition)
    throw new Error(`${message}${detail === undefined ? "" : `\n${typeof detail === "string" ? detail : JSON.stringify(detail)}`}`);
}

/** The traffic since `from`: what the Inspector sent for one command. */
const since = (proxy, from) => proxy.seen.slice(from);

process.env.CLOUDFLARE_CF_FETCH_ENABLED = "false";
await buildFixtureSkills();
const worker = await unstable_startWorker({
  config: join(here, "wrangler.toml"),
  dev: { server: { hostname: "127.0.0.1", port: 0 }, inspector: false, watch: false, logLevel: "warn" },
});
let proxy;
let daemonEnv;
try {
  await worker.ready;
  const direct = new URL("/mcp", await worker.url).href;
  proxy = await recordingProxy(direct);
  console.log(`Fixture Worker at ${direct}, recorded through ${proxy.url}`);

  const cli = (args) => run(node, [CLI, "--cli", proxy.url, "--protocol-era", "modern", "--format", "json", ...args]);
  console.log("\nmcp-inspector --cli (2.12.0)");

  await check("tools/call runs label_items as a task (tasks/get polled, Mcp-Name = taskId) and prints its result", async () => {
    const from = proxy.seen.length;
    const out = await cli(["--method", "tools/call", "--tool-name", "label_items", "--tool-arg", "count=3"]);
    expect(out.code === 0, `exit ${out.code}`, out.stderr || out.stdout);
    expect(
      out.json?.result?.content?.[0]?.text === "Labelled the items (add): 3 of 3 items got new labels.",
      "unexpected result",
      out.stdout,
    );
    const traffic = since(proxy, from);
    const created = traffic.find((entry) => entry.method === "tools/call");
    expect(created?.resultType === "task", "tools/call was not answered with a task", traffic);
    const polls = traffic.filter((entry) => entry.method === "tasks/get");
    expect(polls.length > 0 && polls.every((poll) => poll.mcpName === created.taskId), "tasks/get polls missing or misnamed", traffic);
    expect(polls.at(-1).status === "completed", "the last tasks/get did not see the task completed", traffic);
  });

  await check("(limitation) --cli has no tasks/get, tasks/update or tasks/cancel method", async () => {
    const out = await cli(["--method", "tasks/get", "--task-id", "x"]);
    expect(
      out.code !== 0 && /Unsupported method: tasks\/get/.test(out.stdout + out.stderr),
      "tasks/get is supported now: update this check",
      out.stdout,
    );
  });

  console.log("\nmcpdo (2.12.0, experimental)");
  const privateDaemon = await run(node, [MCPDO, "private"]);
  daemonEnv = Object.fromEntries([...privateDaemon.stdout.matchAll(/^export (\w+)='([^']*)'$/gm)].map(([, name, value]) => [name, value]));
  expect(daemonEnv.MCP_INSPECTOR_DAEMON_DIR, "mcpdo private printed no daemon directory", privateDaemon.stdout + privateDaemon.stderr);
  const mcpdo = (args) => run(node, [MCPDO, "--format", "json", ...args], daemonEnv);
  const connected = await mcpdo(["connect", "@fixture", proxy.url, "--era", "modern", "--elicit", "form"]);
  expect(connected.code === 0, `mcpdo connect: exit ${connected.code}`, connected.stderr || connected.stdout);
  const call = (count) => mcpdo(["--connection", "fixture", "tools/call", "label_items", `count:=${count}`]);

  await check(
    "tools/call: the task's question comes back as elicitationPending; elicitation/respond answers it (tasks/update) and prints the result",
    async () => {
      const from = proxy.seen.length;
      const asked = await call(3);
      const pending = asked.json?.elicitationPending;
      expect(
        pending?.origin === "task-input-required" && /3 of 3 items would get new labels/.test(pending.message),
        "no pending task question",
        asked.stdout,
      );
      const answered = await mcpdo([
        "--connection",
        "fixture",
        "elicitation/respond",
        pending.elicitationId,
        "apply:=true",
        "mode:=replace",
      ]);
      expect(
        answered.json?.content?.[0]?.text === "Labelled the items (replace): 3 of 3 items got new labels.",
        "unexpected result",
        answered.stdout,
      );
      const traffic = since(proxy, from);
      const taskId = traffic.find((entry) => entry.method === "tools/call")?.taskId;
      const update = traffic.find((entry) => entry.method === "tasks/update");
      expect(taskId && update?.mcpName === taskId, "no tasks/update for the task", traffic);
    },
  );

  await check("(limitation) tasks/cancel is refused while the task's question is pending on the connection", async () => {
    const asked = await call(3);
    const pending = asked.json?.elicitationPending;
    expect(pending, "no pending task question", asked.stdout);
    const taskId = proxy.seen.findLast((entry) => entry.method === "tools/call")?.taskId;
    const refused = await mcpdo(["--connection", "fixture", "tasks/cancel", taskId]);
    expect(
      refused.json?.error?.code === "elicitation_pending",
      "tasks/cancel is accepted now: update this check",
      refused.stdout + refused.stderr,
    );
    // The way out mcpdo offers: answer the question with "cancel" (the tool then changes nothing and completes).
    const declined = await mcpdo(["--connection", "fixture", "elicitation/respond", pending.elicitationId, "--cancel"]);
    expect(declined.json?.content?.[0]?.text === "No labels were changed.", "unexpected result", declined.stdout);
  });

  await check(
    "tasks/cancel from a second connection stops a working task; the call waiting on it ends; tasks/get says cancelled",
    async () => {
      const quiet = await mcpdo(["connect", "@quiet", proxy.url, "--era", "modern", "--elicit", "off"]);
      const other = await mcpdo(["connect", "@canceller", proxy.url, "--era", "modern", "--elicit", "off"]);
      expect(quiet.code === 0 && other.code === 0, "mcpdo connect failed", quiet.stderr + other.stderr);
      // Without forms label_items asks nothing: it scans and labels 60 items, a second between batches of 25.
      const from = proxy.seen.length;
      const waiting = mcpdo(["--connection", "quiet", "tools/call", "label_items", "count:=60", "batch_delay_ms:=1000"]);
      // mcpdo prints no task id: it is read from the traffic (the tools/call answer).
      let taskId;
      for (let poll = 0; poll < 100 && !taskId; poll++) {
        taskId = since(proxy, from).find((entry) => entry.method === "tools/call")?.taskId;
        if (!taskId) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(taskId, "tools/call created no task", since(proxy, from));
      const cancelled = await mcpdo(["--connection", "canceller", "tasks/cancel", taskId]);
      expect(cancelled.json?.cancelled === true, "tasks/cancel failed", cancelled.stdout + cancelled.stderr);
      const ended = await waiting;
      expect(!/Labelled the items/.test(ended.stdout), "the call completed instead", ended.stdout);
      const got = await mcpdo(["--connection", "canceller", "tasks/get", taskId]);
      expect(got.json?.task?.status === "cancelled", "the task is not cancelled", got.stdout);
      expect(/^Cancelled by the client/.test(got.json.task.statusMessage ?? ""), "unexpected statusMessage", got.json.task);
      console.log(`        the waiting tools/call printed: ${(ended.stdout || ended.stderr).trim().replaceAll("\n", " ").slice(0, 200)}`);
    },
  );
} finally {
  if (daemonEnv) {
    await run(node, [MCPDO, "daemon", "stop"], daemonEnv);
    rmSync(daemonEnv.MCP_INSPECTOR_DAEMON_DIR, { recursive: true, force: true });
  }
  await proxy?.close();
  await worker.dispose();
  rmSync(home, { recursive: true, force: true });
}

const failed = results.filter((result) => !result.ok).length;
console.log(`\n${results.length - failed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
