/**
 * Starts the Worker once for all end-to-end tests, the way `npm run dev` does (`wrangler dev`, bound to 127.0.0.1),
 * and hands its URL to the tests. With tracing observable (./tail/start.ts): the same process serves the tracing
 * tests, which read the spans it recorded from `tailEventsUrl`, so they need no wrangler dev of their own. Its
 * settings are the tests' (TEST_BINDINGS), never a developer's .dev.vars: the config is a copy in a temporary
 * directory, with no .dev.vars beside it.
 *
 * The assets (views, skills) are built once here, for every wrangler the tests start. The Worker's start is not
 * awaited here: the other projects' tests run while wrangler starts (about 5 s), and each end-to-end test file
 * waits for it first (./worker-ready.ts). So its port is chosen before it starts.
 */
import type { TestProject } from "vitest/node";
import { buildTemplateAssets, freePort } from "./dev-server";
import { launchTracedTemplate } from "./tail/start";

declare module "vitest" {
  export interface ProvidedContext {
    mcpUrl: string;
    /** Where a GET answers every tail event the shared Worker's invocations produced so far (JSON); `ready` waits for it. */
    tailEventsUrl: string;
  }
}

export default async function setup(project: TestProject) {
  buildTemplateAssets();
  const traced = await launchTracedTemplate(await freePort());
  project.provide("mcpUrl", traced.url);
  project.provide("tailEventsUrl", traced.eventsUrl);
  return async () => {
    await traced.stop();
  };
}
