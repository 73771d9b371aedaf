/**
 * A deploy that keeps `.dev.vars.example`'s stand-in for STATE_KEYS fails closed: the Worker refuses to serve, and
 * says why in its log, instead of signing state with a key published in this repository.
 */
import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import devVarsExample from "../../.dev.vars.example?raw";
import worker from "../../src";
import { MCP_URL, modernRequest } from "../wire";

const standIn = /^STATE_KEYS=(.*)$/m.exec(devVarsExample)?.[1];
const deployed = { ...env, MCP_ENV: "production", STATE_KEYS: standIn } as Env;

afterEach(() => {
  vi.restoreAllMocks();
});

describe("a deploy that kept .dev.vars.example's STATE_KEYS", () => {
  it("answers 503 on /mcp and on /health, and logs that STATE_KEYS is the problem", async () => {
    expect(standIn).toBeDefined();
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    const call = await worker.fetch(modernRequest(MCP_URL, { id: 1, method: "tools/list" }), deployed, createExecutionContext());
    expect(call.status).toBe(503);
    expect(JSON.stringify(logged.mock.calls)).toMatch(/STATE_KEYS /);
    const health = await worker.fetch(new Request(new URL("/health", MCP_URL)), deployed, createExecutionContext());
    expect(health.status).toBe(503);
    expect(await health.json()).toEqual({ status: "error", config: "invalid" });
  });
});
