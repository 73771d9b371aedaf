/**
 * `wrangler dev` as a child process, for tests that need what only the real command does (the files it reads beside
 * its config, what it prints, several Workers in one dev session). The template's wrangler.toml is copied to a
 * temporary directory, with main, build and assets (when it has them) pointing back at the repository, so a test can
 * put a `.dev.vars` beside the copy and never touches the repository's own.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { experimental_readRawConfig } from "wrangler";

export const root = resolve(import.meta.dirname, "../..");

/**
 * Runs the template's custom build (wrangler.toml's `[build]` command: the views and skills into the assets folder)
 * once, as `wrangler dev` would before it starts. The end-to-end global setup calls it; the configs the tests start
 * wrangler with (`copyTemplateConfig`) then leave the build out, so six wrangler starts do not build six times.
 */
export function buildTemplateAssets(): void {
  const { rawConfig } = experimental_readRawConfig({ config: join(root, "wrangler.toml") });
  // An app without views or skills has no build (`npm run blank` keeps one for the fork's skills).
  if (!rawConfig.build?.command) return;
  const built = spawnSync(rawConfig.build.command, { cwd: root, shell: true, encoding: "utf8" });
  if (built.status !== 0) throw new Error(`the template's build (${rawConfig.build.command}) failed:\n${built.stdout}${built.stderr}`);
}

/**
 * The template's wrangler.toml as JSON in `dir` (wrangler.json), paths made absolute, `overrides` applied; its path.
 * Without its `[build]`: the end-to-end setup has built the assets once (`buildTemplateAssets`).
 */
export function copyTemplateConfig(dir: string, overrides: Record<string, unknown> = {}): string {
  const { rawConfig } = experimental_readRawConfig({ config: join(root, "wrangler.toml") });
  const { build: _built, assets, ...config } = rawConfig;
  const copy = {
    ...config,
    main: join(root, rawConfig.main!),
    ...(assets && { assets: { ...assets, directory: join(root, assets.directory!) } }),
    ...overrides,
  };
  const path = join(dir, "wrangler.json");
  writeFileSync(path, JSON.stringify(copy));
  return path;
}

/** `npm run dev`'s arguments after `wrangler dev`, as package.json has them. */
export function devScriptArguments(): string[] {
  const [command, subcommand, ...args] = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")).scripts.dev as string).split(" ");
  if (`${command} ${subcommand}` !== "wrangler dev") throw new Error(`package.json's dev script is not wrangler dev: ${command}`);
  return args;
}

export interface DevProcess {
  child: ChildProcess;
  /** The origin wrangler prints once the Worker is ready ("Ready on http://127.0.0.1:PORT"). */
  ready: Promise<string>;
  /** Everything wrangler and the Worker printed so far, colours removed. */
  output(): string;
}

/**
 * Runs `wrangler dev <args>` (the repository's pinned wrangler) on 127.0.0.1, from the repository's directory or
 * `cwd` (a copy of the app, whose `[build]` runs there).
 */
export function spawnWranglerDev(args: string[], cwd = root): DevProcess {
  const child = spawn(process.execPath, [join(root, "node_modules/wrangler/bin/wrangler.js"), "dev", ...args], {
    cwd,
    env: { ...process.env, CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_SEND_METRICS: "false" },
  });
  let output = "";
  // biome-ignore lint/suspicious/noControlCharactersInRegex: wrangler colours its output.
  const read = (chunk: Buffer) => (output += chunk.toString().replace(/\x1b\[[0-9;]*m/g, ""));
  child.stdout?.on("data", read);
  child.stderr?.on("data", read);
  const ready = new Promise<string>((resolveReady, fail) => {
    const timer = setTimeout(() => fail(new Error(`wrangler dev did not start:\n${output}`)), 50_000);
    const check = () => {
      const match = /Ready on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (!match) return;
      clearTimeout(timer);
      resolveReady(match[1]!);
    };
    child.stdout?.on("data", check);
    child.stderr?.on("data", check);
    child.once("exit", (code) => {
      clearTimeout(timer);
      fail(new Error(`wrangler dev exited (${code}):\n${output}`));
    });
  });
  return { child, ready, output: () => output };
}

/** A `wrangler dev` of the template's config (`startCopyWithSettings`), and how to end it and remove its directory. */
export interface DevCopy {
  dev: DevProcess;
  /** The origin it answers on, once ready. */
  origin: string;
  stop(): Promise<void>;
}

/**
 * `wrangler dev <args>` on a copy of the template's config in a temporary directory, with `devVars` as the
 * `.dev.vars` beside it (local settings, as a developer keeps them), on 127.0.0.1 and a free port. `args` come
 * first: `devScriptArguments()` to run it as `npm run dev` does, or nothing for the config's own mode (production).
 */
export async function startCopyWithSettings(devVars: string, args: string[] = []): Promise<DevCopy> {
  const dir = mkdtempSync(join(tmpdir(), "mcp-dev-copy-"));
  const config = copyTemplateConfig(dir);
  writeFileSync(join(dir, ".dev.vars"), devVars);
  const dev = spawnWranglerDev([
    ...args,
    ...["-c", config, "--ip", "127.0.0.1", "--port", "0", "--inspector-port", "0"],
    ...["--persist-to", join(dir, "state"), "--show-interactive-dev-session=false"],
  ]);
  const stop = async () => {
    await exited(dev.child);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    return { dev, origin: await dev.ready, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Ends wrangler (and its workerd, which it stops on SIGTERM) and waits for it to exit. */
export function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((done) => {
    child.once("exit", () => done());
    child.kill("SIGTERM");
  });
}

/**
 * A TCP port on 127.0.0.1 that was free a moment ago, for a server whose URL must be known before it is ready.
 *
 * Why not port 0's answer: the kernel hands that out from its ephemeral range, which every outgoing connection and
 * every `--port 0` server of this machine (another checkout running its own suite, say) draws from; in the seconds
 * until wrangler binds it, one of them took it and wrangler failed with "Address already in use". So a random port
 * below that range is tried: nothing is given one there unless it asks for it by number.
 */
export async function freePort(): Promise<number> {
  // Linux says where its range starts; elsewhere (macOS: 49152) it starts above 32768.
  const range = "/proc/sys/net/ipv4/ip_local_port_range";
  const ephemeralStart = existsSync(range) ? Number(readFileSync(range, "utf8").split(/\s+/)[0]) : 32_768;
  const [low, high] = [10_000, Math.min(ephemeralStart, 32_768)];
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = low + Math.floor(Math.random() * (high - low));
    if (await isFree(port)) return port;
  }
  throw new Error(`no free port between ${low} and ${high} after 100 tries`);
}

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once("error", () => resolve(false));
    probe.listen(port, "127.0.0.1", () => probe.close(() => resolve(true)));
  });
}
