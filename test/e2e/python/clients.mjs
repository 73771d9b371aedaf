#!/usr/bin/env node
/**
 * `npm run clients:python`: installs the Python MCP clients of ./requirements.txt (every package pinned) into a
 * virtual environment of their own, .tools/python-clients/ (ignored by git), never into the system's Python. .ci/run
 * runs it before `npm test`. It does nothing when the environment already holds exactly these requirements (it keeps a
 * copy of the file it was made from), and makes it again when they changed. Needs Python 3.10 or newer with its venv
 * module (`python3`, or the interpreter PYTHON names; Debian: apt-get install python3-venv) and a package index that
 * pip reaches.
 *
 * Imported without running (the paths below): the end-to-end tests run the environment's python.
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, readFileSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const root = resolve(import.meta.dirname, "../../..");
export const REQUIREMENTS = join(import.meta.dirname, "requirements.txt");
export const VENV = join(root, ".tools/python-clients");
export const VENV_PYTHON = join(VENV, "bin/python");
export const INSTALL_COMMAND = "npm run clients:python";
/** The requirements the environment was made from, kept inside it. */
const INSTALLED = join(VENV, "requirements.txt");
/**
 * Why bounded: pip waits on an index that does not answer (its own timeout is per request, and it retries). About
 * 20 s on a 2-core machine with a local index; five minutes leaves room for a slow network.
 */
const INSTALL_TIMEOUT_MS = 5 * 60_000;

/**
 * Prints the interpreter's version; fails below 3.10 (what mcp 2.3.0 and fastmcp 4.0.10 require) or without venv and
 * ensurepip (Debian splits them into python3-venv).
 */
const PYTHON_CHECK = "import sys, venv, ensurepip; print('%d.%d' % sys.version_info[:2]); sys.exit(sys.version_info < (3, 10))";

/** Whether the environment is there and holds exactly ./requirements.txt. */
export function pythonClientsInstalled() {
  return existsSync(VENV_PYTHON) && existsSync(INSTALLED) && readFileSync(INSTALLED, "utf8") === readFileSync(REQUIREMENTS, "utf8");
}

/** Runs a command to its end with its output shown; throws, naming it, when it fails. */
function run(command, args, timeout = INSTALL_TIMEOUT_MS) {
  const result = spawnSync(command, args, { stdio: "inherit", timeout, env: { ...process.env, PIP_NO_INPUT: "1" } });
  if (result.error) throw new Error(`${command} ${args.join(" ")}: ${result.error.message}`);
  if (result.status !== 0) throw new Error(`${command} ${args.join(" ")} failed (exit ${result.status ?? result.signal})`);
}

/** Makes the environment from scratch: a new venv, then pip installs the requirements into it. */
function install() {
  const python = process.env.PYTHON || "python3";
  const version = spawnSync(python, ["-c", PYTHON_CHECK], { encoding: "utf8" });
  if (version.status !== 0)
    throw new Error(
      `${python} is not Python 3.10 or newer with venv (${version.error?.message ?? (version.stdout.trim() || version.stderr.trim())}); ` +
        "set PYTHON to one, or install it (Debian: apt-get install python3-venv)",
    );
  console.log(`Installing the Python MCP clients (${REQUIREMENTS}) into ${VENV}, with Python ${version.stdout.trim()} ...`);
  rmSync(VENV, { recursive: true, force: true });
  run(python, ["-m", "venv", VENV], 60_000);
  // Why one retry and a 30 s timeout: a machine that reaches only a local index still spends pip's retries on each
  // index it cannot reach (five by default, with back-off: minutes in all); once is enough for a real network's blips.
  run(VENV_PYTHON, [
    ...["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-input", "--progress-bar", "off"],
    ...["--retries", "1", "--timeout", "30", "--requirement", REQUIREMENTS],
  ]);
  // The pins are a whole set: pip check fails if one of them no longer satisfies another's requirement.
  run(VENV_PYTHON, ["-m", "pip", "check", "--disable-pip-version-check"], 60_000);
  copyFileSync(REQUIREMENTS, INSTALLED);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const started = Date.now();
  try {
    if (pythonClientsInstalled()) console.log(`The Python MCP clients are installed in ${VENV} (as ${REQUIREMENTS} lists them).`);
    else {
      install();
      console.log(`Installed the Python MCP clients in ${((Date.now() - started) / 1000).toFixed(1)} s.`);
    }
  } catch (error) {
    console.error(`Could not install the Python MCP clients: ${error.message}`);
    process.exit(1);
  }
}
