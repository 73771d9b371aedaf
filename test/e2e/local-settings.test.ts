/**
 * The README's local recipe works as written: settings put in `.dev.vars` reach the Worker under `npm run dev`, and
 * the server says at start which authorization mode is in effect. Run as the dev script's own command (package.json
 * `scripts.dev`) on a copy of wrangler.toml in a temporary directory, with the `.dev.vars` beside it: the
 * repository's own `.dev.vars` is never created, read or changed.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { modernRequest } from "../wire";
import { type DevCopy, type DevProcess, devScriptArguments, root, startCopyWithSettings } from "./dev-server";

/** The resource-server lines of .dev.vars.example, uncommented: the local recipe exactly as the example writes it. */
const RECIPE = readFileSync(join(root, ".dev.vars.example"), "utf8")
  .split("\n")
  .filter((line) => /^# AUTH_(ISSUER|AUDIENCE)=/.test(line))
  .map((line) => line.slice("# ".length));
const setting = (name: string) => RECIPE.find((line) => line.startsWith(`${name}=`))!.slice(name.length + 1);

describe("npm run dev with .dev.vars.example's AUTH_ISSUER and AUTH_AUDIENCE lines in .dev.vars", () => {
  let copy: DevCopy;
  let dev: DevProcess;
  let origin: string;

  beforeAll(async () => {
    expect(RECIPE).toHaveLength(2);
    copy = await startCopyWithSettings(`${RECIPE.join("\n")}\n`, devScriptArguments());
    ({ dev, origin } = copy);
  }, 60_000);

  afterAll(async () => {
    await copy?.stop();
  });

  it("turns authorization on: an unauthenticated tools/call gets 401 with the challenge, and the metadata names the issuer", async () => {
    // Refused before any tool is looked up, so the call names none of the app's: this holds whatever src/tools.ts declares.
    const response = await fetch(
      modernRequest(`${origin}/mcp`, {
        id: 1,
        method: "tools/call",
        params: { name: "any_tool", arguments: { text: "open to anyone?" } },
      }),
    );
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toContain(`resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`);
    const metadata = await (await fetch(`${origin}/.well-known/oauth-protected-resource/mcp`)).json();
    expect(metadata).toMatchObject({ authorization_servers: [setting("AUTH_ISSUER")], resource: setting("AUTH_AUDIENCE") });
  });

  it("says at start, before it is ready, which authorization mode is in effect", () => {
    const output = dev.output();
    const line = `"development mode: authorization on, bearer tokens from AUTH_ISSUER ${setting("AUTH_ISSUER")} for ${setting("AUTH_AUDIENCE")}"`;
    expect(output).toContain(line);
    expect(output.indexOf(line)).toBeLessThan(output.indexOf("Ready on"));
  });
});
