/**
 * The Python clients against the running Worker: the official Python SDK's (`mcp` 2.3.0) and FastMCP's (4.0.10, on
 * that SDK), each in every mode it offers: pinned to 2026-07-28, `auto` (probes server/discover, falls back to
 * initialize) and `legacy` (initialize, 2025-11-25). Each run is one of ./python/'s scripts driving the example's
 * notes flow (the one ./modern-client.test.ts drives), which prints what each step saw; these tests check it.
 *
 * The clients live in a virtual environment of their own (`npm run clients:python`, which .ci/run runs before the
 * tests), as pinned in ./python/requirements.txt. Like the browser tests without Chromium (./chromium.ts): without
 * it these tests are skipped locally, with a warning naming the command, and fail in CI, where it must be there
 * (unless .ci/run could not install it, which it then says: PYTHON_CLIENTS_UNAVAILABLE).
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { appBinds, EXAMPLE_TOOLS } from "./app-bindings";
import { INSTALL_COMMAND, pythonClientsInstalled, REQUIREMENTS, VENV, VENV_PYTHON } from "./python/clients.mjs";

const installed = pythonClientsInstalled();
const missing = `the Python MCP clients are not installed in ${VENV} as ${REQUIREMENTS} pins them: run \`${INSTALL_COMMAND}\``;
// In CI the clients must be there, unless .ci/run could not install them and said so (PYTHON_CLIENTS_UNAVAILABLE).
const unavailable = process.env.PYTHON_CLIENTS_UNAVAILABLE;
if (!installed && process.env.CI === "true" && !unavailable) throw new Error(`${missing} (.ci/run does, before npm test)`);
if (!installed) console.warn(`Skipping test/e2e/python-clients.test.ts: ${unavailable ?? missing}`);

type PythonClient = "mcp" | "fastmcp";
type Mode = "2026-07-28" | "auto" | "legacy";

/** The version requirements.txt pins for a package: the one the run must report. */
const pinned = (name: string) => new RegExp(`^${name}==(\\S+)$`, "m").exec(readFileSync(REQUIREMENTS, "utf8"))?.[1];

/** Why bounded: a client waiting on an answer that never comes must fail its test, not hang the suite. */
const RUN_TIMEOUT_MS = 60_000;

/** Runs a client's script for one mode against the shared Worker; its summary (stdout, one JSON object). */
function runFlow(client: PythonClient, mode: Mode): Promise<any> {
  const script = join(import.meta.dirname, "python", `${client}_notes_flow.py`);
  return new Promise((resolve, reject) => {
    execFile(
      VENV_PYTHON,
      [script, inject("mcpUrl"), mode],
      // No .pyc files beside the scripts (the environment's own were compiled at install).
      { timeout: RUN_TIMEOUT_MS, maxBuffer: 16 << 20, env: { ...process.env, PYTHONDONTWRITEBYTECODE: "1" } },
      (error, stdout, stderr) => {
        if (error) {
          const how = error.killed ? `stopped after ${RUN_TIMEOUT_MS / 1000} s` : `exit code ${error.code}`;
          return reject(new Error(`${client} ${mode} (${how}): ${error.message}\n${stderr}`));
        }
        try {
          resolve(JSON.parse(stdout));
        } catch {
          reject(new Error(`${client} ${mode} printed no JSON summary:\n${stdout}\n${stderr}`));
        }
      },
    );
  });
}

/** The runs, started once the Worker is ready (each takes 2 to 3 s on an idle machine, mostly Python starting). */
const runs = new Map<string, Promise<any>>();

/**
 * At most two runs at a time, one per core of the machines the suite runs on: each imports its whole client, seconds
 * of CPU, and six started at once beside the rest of a busy suite crossed RUN_TIMEOUT_MS. Each run's bound starts
 * when the run does.
 */
const lanes: Promise<unknown>[] = [Promise.resolve(), Promise.resolve()];
let nextLane = 0;
function inLane<T>(start: () => Promise<T>): Promise<T> {
  const lane = nextLane++ % lanes.length;
  const run = lanes[lane]!.then(start);
  lanes[lane] = run.catch(() => {});
  return run;
}
const summaryOf = (client: PythonClient, mode: Mode) => runs.get(`${client} ${mode}`)!;

/** The questions the flow asks, in order: the summary's sampling, the draft's three rounds, the deletion's form, the retag's. */
const QUESTIONS = [
  "sample",
  'elicit:Drafting a note about "Release plan". Who is it for, and how long should it be?',
  "roots",
  "sample",
  "elicit:Save this draft?",
  'elicit:Delete the note "Invoices (paid)"? This cannot be undone.',
  'elicit:1 of 1 notes would get new tags. Apply them? "add" keeps existing tags; "replace" removes them.',
];

/** Checks every step of a run: the same answers whichever client, mode and era. */
function expectFlow(summary: any, client: PythonClient, mode: Mode) {
  const steps = summary.steps;
  expect(Object.entries(steps).filter(([, seen]: [string, any]) => seen && typeof seen === "object" && "error" in seen)).toEqual([]);
  expect(summary).toMatchObject({ client, version: pinned(client), mode });
  expect(summary.protocol_version).toBe(mode === "legacy" ? "2025-11-25" : "2026-07-28");
  // A client pinned to a version asks nothing up front (no server/discover), so it has no server identity.
  expect(summary.server_info).toEqual(mode === "2026-07-28" ? null : { name: "mcp-notes-server", version: "0.1.0" });
  expect(steps.list_tools.filter((name: string) => EXAMPLE_TOOLS.includes(name))).toEqual(EXAMPLE_TOOLS);

  const notebook = steps.create_notebook.structured.notebook_id;
  const note = steps.add_note.structured.id;
  expect(notebook).toMatch(/^nb_/);
  expect(steps.add_note).toMatchObject({ is_error: false, structured: { title: "Invoices", tags: ["work"] } });
  expect(steps.search_notes.structured.notes.map((found: any) => found.id)).toEqual([note]);
  expect(steps.get_note.structured).toMatchObject({ id: note, title: "Invoices", body: "Pay March invoices." });
  expect(steps.update_note.structured.title).toBe("Invoices (paid)");
  expect(steps.summarize_notes.text).toBe("Summary of 1 note(s), written by python-model:\nWritten by the Python client's model.");
  expect(steps.read_note).toEqual([
    { uri: `note://${notebook}/${note}`, mime_type: "text/markdown", text: expect.stringContaining("Invoices (paid)") },
  ]);
  expect(steps.read_guide).toEqual([
    { uri: "notes://guide", mime_type: "text/markdown", text: expect.stringContaining("create_notebook") },
  ]);
  expect(steps.get_prompt.messages).toBe(2);
  expect(steps.complete).toEqual([note]);
  expect(steps.draft_note).toMatchObject({ is_error: false, text: expect.stringMatching(/^Saved the draft as note n_/) });
  // The workspace root the client shared reached the model's prompt: the sampled draft names it.
  expect(steps.drafted).toEqual({ title: "Release plan", tags: ["draft"], body: "Drafted with the workspace proj." });
  expect(steps.delete_note).toEqual({ is_error: false, structured: null, text: `Deleted note ${note} ("Invoices (paid)").` });
  // Not a task: neither client declares the Tasks extension, so the tool runs synchronously, its question a round.
  expect(steps.retag_notebook).toEqual({
    is_error: false,
    structured: null,
    text: "Retagged the notebook (add): 1 of 1 notes got new tags.",
  });
  expect(steps.unknown_tool).toEqual({ code: -32602, message: "Unknown tool: no_such_tool" });
  expect(summary.asked).toEqual(QUESTIONS);
}

/**
 * What each mode needs of the app: 2026-07-28 confirmations are single use (REPLAY_GUARD); a 2025 client is asked
 * its questions as server-to-client requests, which need a session (LEGACY_SESSIONS).
 */
const needs = (mode: Mode) => (mode === "legacy" ? appBinds("LEGACY_SESSIONS") : appBinds("REPLAY_GUARD"));

describe.skipIf(!installed)("Python clients (mcp 2.3.0, FastMCP 4.0.10) against wrangler dev", { timeout: RUN_TIMEOUT_MS + 10_000 }, () => {
  beforeAll(() => {
    for (const client of ["mcp", "fastmcp"] as const) {
      for (const mode of ["2026-07-28", "auto", "legacy"] as const) {
        if (!needs(mode)) continue;
        const run = inLane(() => runFlow(client, mode));
        // Awaited by its test; marked handled here so that a failure is reported there, once.
        run.catch(() => {});
        runs.set(`${client} ${mode}`, run);
      }
    }
  });

  it.runIf(needs("2026-07-28"))(
    "mcp 2.3.0 pinned to 2026-07-28: every example tool (the long-running one synchronously), both resources, the prompt and completion; elicitation, sampling and roots through multi round-trip rounds",
    async () => {
      expectFlow(await summaryOf("mcp", "2026-07-28"), "mcp", "2026-07-28");
    },
  );

  it.runIf(needs("auto"))("mcp 2.3.0 in auto mode: settles on 2026-07-28 through server/discover, the same flow", async () => {
    expectFlow(await summaryOf("mcp", "auto"), "mcp", "auto");
  });

  it.runIf(needs("legacy"))(
    "mcp 2.3.0 in legacy mode: initialize on 2025-11-25, the same flow, its questions as server-to-client requests in a session",
    async () => {
      expectFlow(await summaryOf("mcp", "legacy"), "mcp", "legacy");
    },
  );

  it.runIf(needs("2026-07-28"))(
    "FastMCP 4.0.10 pinned to 2026-07-28: the same flow through its handlers; no log messages, though it asks for them at debug level",
    async () => {
      const summary = await summaryOf("fastmcp", "2026-07-28");
      expectFlow(summary, "fastmcp", "2026-07-28");
      expect(summary.sdk).toBe(pinned("mcp"));
      // It puts logLevel "debug" in every request's _meta; on 2026-07-28 the server declares no logging, so sends none.
      expect(summary.logs).toEqual([]);
    },
  );

  it.runIf(needs("auto"))("FastMCP 4.0.10 in auto mode: settles on 2026-07-28 through server/discover, the same flow", async () => {
    const summary = await summaryOf("fastmcp", "auto");
    expectFlow(summary, "fastmcp", "auto");
    expect(summary.logs).toEqual([]);
  });

  it.runIf(needs("legacy"))(
    "FastMCP 4.0.10 in legacy mode: initialize on 2025-11-25, the same flow, its questions as server-to-client requests in a session",
    async () => {
      const summary = await summaryOf("fastmcp", "legacy");
      expectFlow(summary, "fastmcp", "legacy");
      // It sets no level (logging/setLevel) on 2025, so the server sends no log messages.
      expect(summary.logs).toEqual([]);
    },
  );
});
