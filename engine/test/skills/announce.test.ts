/**
 * What a change of skills is on a Worker: a deployment with other skills. Each isolate tells the hub once which
 * version of the skills it serves (after its first response); the hub announces a version other than the one it
 * saw last, once, as `notifications/resources/list_changed`, to every listener, whichever isolate holds its stream.
 * Here each `skillServer` is one isolate (its own env and server) of the deployment whose files it serves.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { GLOBAL_GROUP } from "../../src/listen/groups";
import { connect } from "../../src/testing";
import { FILES, type SkillFiles, skillServer } from "./fixture";

/** The fixture's files with beta's description changed: another deployment's skills, so another version. */
function deployment(label: string): SkillFiles {
  return { ...FILES, beta: { "SKILL.md": `---\nname: beta\ndescription: Deployed as ${label}.\n---\nBeta.\n` } };
}

describe("a change of skills", () => {
  it("reaches listeners of both eras held by another isolate, once per new version, whichever isolate serves it", async () => {
    const before = deployment(`before-${crypto.randomUUID()}`);
    const after = deployment(`after-${crypto.randomUUID()}`);
    const old = await skillServer({ files: before });
    // The old deployment's isolate has served a request, so the hub knows its version.
    await old.call("server/discover");
    await old.settled();
    const modern = await (await connect(old.fetcher)).listen({ resourcesListChanged: true });
    const legacy = await (await connect(old.fetcher, { era: "2025", version: "2025-11-25" })).listen();
    await old.settled();
    expect(await modern.tryNext(200)).toBeUndefined();

    // An isolate of the new deployment serves its first request: both listeners hear of it.
    const fresh = await skillServer({ files: after });
    expect(fresh.manifest.version).not.toBe(old.manifest.version);
    await fresh.call("tools/list");
    await fresh.settled();
    expect(await modern.next()).toMatchObject({ method: "notifications/resources/list_changed" });
    expect(await legacy.next()).toMatchObject({ method: "notifications/resources/list_changed" });

    // The same isolate again, and another isolate of the same deployment: the hub has seen that version.
    await fresh.call("tools/list");
    const sibling = await skillServer({ files: after });
    await sibling.call("tools/list");
    await Promise.all([fresh.settled(), sibling.settled()]);
    expect(await modern.tryNext(300)).toBeUndefined();
    expect(await legacy.tryNext(300)).toBeUndefined();
    await Promise.all([modern.close(), legacy.close()]);
  });

  it("is not announced to a listener that did not ask for resource list changes", async () => {
    const old = await skillServer({ files: deployment(`quiet-before-${crypto.randomUUID()}`) });
    await old.call("server/discover");
    await old.settled();
    const toolsOnly = await (await connect(old.fetcher)).listen({ toolsListChanged: true });
    const fresh = await skillServer({ files: deployment(`quiet-after-${crypto.randomUUID()}`) });
    await fresh.call("server/discover");
    await fresh.settled();
    expect(await toolsOnly.tryNext(300)).toBeUndefined();
    await toolsOnly.close();
  });

  it("is decided by the group's root: it publishes only a value other than the one it saw last under that key", async () => {
    const root = env.SUBSCRIPTIONS.getByName(GLOBAL_GROUP);
    const key = `test-${crypto.randomUUID()}`;
    const event = { type: "resources_list_changed" } as const;
    expect(await root.publishOnChange(key, "v1", event)).toBe(true);
    expect(await root.publishOnChange(key, "v1", event)).toBe(false);
    expect(await root.publishOnChange(key, "v2", event)).toBe(true);
    // Back to an older version (a rollback, or a gradual deployment's other half): a change again, announced.
    expect(await root.publishOnChange(key, "v1", event)).toBe(true);
  });
});
