/**
 * A setting that is present but empty is a configuration problem naming it, never the same as unset
 * (src/config/settings.ts, `isBlank`): `AUTH_ISSUER = ""` once ran the server open.
 */
import { describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config/config";
import settingsSource from "../../src/config/settings.ts?raw";
import { FIXTURE } from "../helpers/fixture";
import { testServer } from "../helpers/rpc";
import { expectError, withLogs } from "../helpers/wire";

const problemsOf = (vars: Record<string, string>) => {
  const loaded = parseConfig({ MCP_ENV: "development", ...vars });
  return loaded.ok ? [] : loaded.problems;
};
const blank = (name: string) => `${name} is set but empty: give it a value, or remove it to leave it unset`;

/** Every setting src/config/settings.ts reads, from its source: a new one is covered without touching this test. */
const SETTINGS = [
  ...new Set([...settingsSource.matchAll(/read\.(?:string|oneOf|list|isSet)\("([A-Z][A-Z0-9_]+)"/g)].map(([, name]) => name!)),
];

describe("a setting present but empty", () => {
  it("is a problem that names it, for every setting the server reads, whether empty or all spaces", () => {
    expect(SETTINGS.length).toBeGreaterThan(15);
    for (const name of SETTINGS) {
      for (const value of ["", "  "]) expect(problemsOf({ [name]: value }), `${name}=${JSON.stringify(value)}`).toContain(blank(name));
    }
  });

  it("is named once, even where the setting is read twice", () => {
    expect(problemsOf({ AUTH_ISSUER: "" }).filter((problem) => problem === blank("AUTH_ISSUER"))).toHaveLength(1);
  });

  it("fails closed in production: an empty AUTH_ISSUER answers 503, never an anonymous tools/list or tools/call", async () => {
    const settings: Record<string, string>[] = [
      { MCP_ENV: "production", AUTH_ISSUER: "" },
      { MCP_ENV: "production", AUTH_ISSUER: "", ALLOWED_HOSTS: "localhost" },
      { MCP_ENV: "production", AUTH_ISSUER: " ", ALLOWED_HOSTS: "localhost" },
    ];
    for (const vars of settings) {
      const server = testServer(FIXTURE, vars);
      const { value: answers, entries } = await withLogs(async () => [
        await server.send("tools/list"),
        await server.send("tools/call", { name: "echo", arguments: { text: "hi" } }),
      ]);
      for (const answer of answers) await expectError(answer, 503, -32603, null);
      // Each refused request logs the problem.
      expect(entries, JSON.stringify(vars)).toEqual(
        answers.map(() => expect.objectContaining({ level: "error", message: "configuration invalid", problems: [blank("AUTH_ISSUER")] })),
      );
    }
  });

  it("leaves an unset setting its default", () => {
    expect(problemsOf({})).toEqual([]);
  });
});
