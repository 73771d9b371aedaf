#!/usr/bin/env node
/**
 * Stops a command on a Node.js older than package.json's `engines.node`, with one error that names the Node wanted and
 * the Node found. `npm test` and `npm run dev` run it first (their `pre` scripts): without it an old Node fails
 * somewhere inside vitest or wrangler with a message about something else. (`npm install` needs no such step: npm
 * itself refuses, since .npmrc sets engine-strict.) `--quiet` only sets the exit code.
 *
 * Written for any Node a fork may still have: no syntax or API newer than Node 12.
 */
import { readFileSync } from "node:fs";

const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
const wanted = pkg.engines.node; // ">=22.12.0": the one form this project declares
const minimum = /^>=(\d+)\.(\d+)\.(\d+)$/.exec(wanted);
if (!minimum) throw new Error(`package.json engines.node is "${wanted}"; scripts/require-node.mjs reads ">=X.Y.Z" only`);

const found = process.versions.node.split(".").map(Number);
const least = minimum.slice(1).map(Number);
const order = found[0] - least[0] || found[1] - least[1] || found[2] - least[2];

if (order < 0) {
  if (!process.argv.includes("--quiet")) {
    console.error(
      `This project needs Node.js ${wanted}; this is Node.js ${process.version} (${process.execPath}).\n` +
        "Install Node.js 22.12 or newer (the current LTS is 26), or on Linux x64 run `. scripts/pinned-node.sh` first.",
    );
  }
  process.exit(1);
}
