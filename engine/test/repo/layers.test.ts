/**
 * The engine's folders are layers: each may import only from the folders below it, never from one above, so no two
 * folders import each other. The order, from the bottom: what every layer uses, the wire, the configuration, the
 * building blocks of HTTP, authorization, asking the user, what a handler runs inside, the declarations, the
 * features, the method table, the two eras side by side, and the Worker. Beside them, not on them, the test client:
 * it imports none of the layers (it speaks to a Worker over HTTP, as any client does), and only tests import it. A
 * new folder must be placed here (the test fails until it is), and gets a folder of tests of its own, as every
 * folder of src/ has one under test/ (docs/architecture.md, "File map").
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { packageRoot, relativeImportsOf, sourceFiles } from "./imports";

const engine = join(packageRoot, "src");

/** Bottom first. `version.ts` is a leaf; `index.ts`, the public module, re-exports from the top. */
const LAYERS = [
  "util", // encoding, logging, memoization
  "wire", // JSON-RPC and MCP on the wire: types, errors, messages, the envelope, who is calling
  "config", // settings from the environment, limits and options from createMcpWorker, the key ring and signed tokens
  "http", // HTTP building blocks: body, guards, headers, replies as JSON or SSE, rate limit
  "auth", // bearer tokens, scopes, protected resource metadata
  "ask", // asking the user: the questions a handler can ask, the one ask loop, the answer check, form schemas
  "run", // what a handler runs inside: its ctx, the request it serves, and how a run ends
  "define", // defineTool, defineResource, definePrompt, defineView, and their methods
  "listen", // subscriptions/listen, publishing, the hub
  "skills", // the Skills extension: defineSkill, the build's manifest, skills/list, skills/get, directory reads
  "tasks", // the Tasks extension, and a task's answers
  "server", // the method table and capabilities
  "modern", // the 2026-07-28 era: its transport, and answers in signed multi round-trip state
  "legacy", // the 2025 era: initialize, sessions, streams, and answers asked live
  "oauth", // the built-in authorization server, in front of the router
  "worker", // createMcpWorker, the routes, the landing page
] as const;

/** Not a layer: the test client for an app's tests, which imports no layer and which the Worker never imports (boundary.test.ts). */
const BESIDE = "testing";

/**
 * The layer of an engine file: its folder's index in LAYERS; root files are -1 (version.ts) or the top (index.ts);
 * the test client, which no layer may import, counts as above the top.
 */
function layerOf(file: string): number {
  const path = relative(engine, file);
  const folder = path.includes("/") ? path.split("/")[0]! : undefined;
  if (folder === undefined) return path === "version.ts" ? -1 : LAYERS.length;
  if (folder === BESIDE) return LAYERS.length + 1;
  return (LAYERS as readonly string[]).indexOf(folder);
}

describe("the engine's layers", () => {
  const files = sourceFiles(engine);
  const folders = readdirSync(engine).filter((name) => statSync(join(engine, name)).isDirectory());
  const importsOf = relativeImportsOf;

  it("names every engine folder in the order, or as the test client beside it", () => {
    expect(folders.sort()).toEqual([...LAYERS, BESIDE].sort());
  });

  it("keeps the test client beside the layers: testing/ imports none of them, only version.ts and its own modules", () => {
    const testing = join(engine, BESIDE);
    const layered = files
      .filter((file) => file.startsWith(`${testing}/`))
      .flatMap((file) =>
        importsOf(file)
          .filter((target) => target.startsWith(`${engine}/`) && !target.startsWith(`${testing}/`) && target !== join(engine, "version.ts"))
          .map((target) => `${relative(engine, file)} -> ${relative(engine, target)}`),
      );
    expect(layered).toEqual([]);
  });

  it("has a folder of tests for every folder of src/, holding at least one test (test/<folder>/*.test.ts)", () => {
    const tests = join(packageRoot, "test");
    const untested = folders.filter(
      (folder) => !existsSync(join(tests, folder)) || !readdirSync(join(tests, folder)).some((name) => name.endsWith(".test.ts")),
    );
    expect(untested).toEqual([]);
  });

  it("has no import that points up, or across to a folder above it", () => {
    const upward = files.flatMap((file) =>
      importsOf(file)
        .filter((target) => target.startsWith(`${engine}/`))
        .filter((target) => layerOf(target) > layerOf(file))
        .map((target) => `${relative(engine, file)} -> ${relative(engine, target)}`),
    );
    expect(upward).toEqual([]);
  });
});
