/**
 * The skills the engine's tests serve: files held here, built into a manifest by the engine's own builder
 * (src/skills/manifest.mjs, as `npm run build:skills` builds skills/), and served through a stand-in for the
 * ASSETS binding. Each stand-in is one "isolate" of one deployment: its own env, so its own catalog and its own
 * once-per-isolate announcement to the hub.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { parse } from "yaml";
import { createMcpWorker, defineSkill, type EngineOptions, type ServerDefinition, type Skill } from "../../src";
import { type Manifest, skillManifest } from "../../src/skills/manifest.mjs";
import { FIXTURE } from "../helpers/fixture";
import { rpc } from "../helpers/rpc";

/** A few bytes of a PNG file: not UTF-8, so served as a base64 blob. */
export const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0xff, 0xfe]);

export type SkillFiles = Record<string, Record<string, string | Uint8Array>>;

/** Two skills: alpha, with files in folders (one with a BOM and CRLF line ends, one binary), and beta, SKILL.md alone. */
export const FILES: SkillFiles = {
  alpha: {
    "SKILL.md":
      "---\nname: alpha\ndescription: The first fixture skill, with folders.\nlicense: Apache-2.0\nmetadata:\n  owner: engine-tests\n---\n\n# Alpha\n\nRead references/guide.md.\n",
    "references/guide.md": "\uFEFF# Guide\r\n\r\nA BOM and CRLF line ends, served byte for byte.\r\n",
    "references/deep/note.txt": "deep\n",
    "scripts/run.sh": "#!/bin/sh\necho alpha\n",
    "assets/logo.png": PNG,
  },
  beta: { "SKILL.md": "---\nname: beta\ndescription: The second fixture skill.\n---\nBeta has nothing else.\n" },
};

export const ALPHA = defineSkill({ name: "alpha" });
export const BETA = defineSkill({ name: "beta" });

const encoder = new TextEncoder();
const bytesOf = (content: string | Uint8Array) => (typeof content === "string" ? encoder.encode(content) : content);

/** The manifest of these files, as the build writes it. */
export function manifestOf(files: SkillFiles): Promise<Manifest> {
  const skills = Object.entries(files).map(([name, record]) => ({
    name,
    files: Object.entries(record).map(([path, content]) => ({ path, bytes: bytesOf(content) })),
  }));
  // The build's parser and options (src/skills/build.mjs parseFrontmatter): YAML 1.2, core schema, no repeated keys.
  return skillManifest(skills, (yaml) => parse(yaml, { schema: "core", uniqueKeys: true }));
}

/**
 * A stand-in for the ASSETS binding: serves `/skills/manifest.json` and `/skills/<name>/<path>` as the build lays
 * them out; `overrides` replace what a path holds (a copy edited after the build), `null` removes it.
 */
export function assetsFor(files: SkillFiles, manifest: Manifest, overrides: Record<string, Uint8Array | null> = {}): Fetcher {
  const served = new Map<string, Uint8Array>([["/skills/manifest.json", encoder.encode(JSON.stringify(manifest))]]);
  for (const [name, record] of Object.entries(files)) {
    for (const [path, content] of Object.entries(record)) served.set(`/skills/${name}/${path}`, bytesOf(content));
  }
  for (const [path, bytes] of Object.entries(overrides)) {
    if (bytes === null) served.delete(path);
    else served.set(path, bytes);
  }
  const fetch = async (input: RequestInfo | URL) => {
    const bytes = served.get(new URL(input instanceof Request ? input.url : input).pathname);
    return bytes ? new Response(bytes) : new Response("Not found", { status: 404 });
  };
  return { fetch } as unknown as Fetcher;
}

export interface SkillServerOptions {
  files?: SkillFiles;
  skills?: Skill[];
  limits?: EngineOptions["limits"];
  /** Replaces the stand-in ASSETS binding (`null`: a Worker without it). */
  assets?: Fetcher | null;
  overrides?: Record<string, Uint8Array | null>;
  definition?: Partial<ServerDefinition>;
}

/** The engine fixture with skills, served with the real bindings and a stand-in ASSETS: one isolate of one deployment. */
export async function skillServer(options: SkillServerOptions = {}) {
  const files = options.files ?? FILES;
  const manifest = await manifestOf(files);
  const worker = createMcpWorker({
    ...FIXTURE,
    skills: options.skills ?? [ALPHA, BETA],
    ...options.definition,
    ...(options.limits && { limits: options.limits }),
  });
  const { ASSETS: _assets, ...bindings } = env as unknown as Record<string, unknown>;
  const assets = options.assets === undefined ? assetsFor(files, manifest, options.overrides) : options.assets;
  const testEnv = { ...bindings, ...(assets && { ASSETS: assets }) } as unknown as Env;
  const contexts: ExecutionContext[] = [];
  const fetcher = (request: Request) => {
    const context = createExecutionContext();
    contexts.push(context);
    return worker.fetch(request, testEnv, context);
  };
  /** Waits for what the requests so far left running after their response (the announcement to the hub). */
  const settled = () => Promise.all(contexts.splice(0).map((context) => waitOnExecutionContext(context)));
  return { ...rpc(fetcher), fetcher, settled, manifest, env: testEnv };
}

/** `sha256:` and the hex SHA-256 of the bytes, computed here (not by the code under test). */
export async function digestOf(bytes: Uint8Array): Promise<string> {
  const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return `sha256:${[...hash].map((byte) => byte.toString(16).padStart(2, "0")).join("")}`;
}

/** The bytes of a `resources/read` content, as a host verifies them: the UTF-8 of its text, or its decoded blob. */
export function contentBytes(content: { text?: string; blob?: string }): Uint8Array {
  return content.text !== undefined ? encoder.encode(content.text) : Uint8Array.fromBase64(content.blob!);
}
