#!/bin/sh
# The `switchboard` command inside the packaged app (electron-builder copies this file to
# Resources/bin/switchboard): `switchboard mcp` (the stdio shim MCP hosts launch), `status`,
# `config <host>`, `serve`. It runs app.asar/bin/switchboard.js on the app's own binary in
# Node mode (the RunAsNode fuse stays on for this, scripts/afterPack.cjs), as VS Code's `code`
# does; the system's `node` cannot read app.asar. Put it on PATH with a symlink, e.g.
#   ln -s /Applications/Switchboard.app/Contents/Resources/bin/switchboard /usr/local/bin/switchboard
set -e
self=$0
# Follow symlinks by hand (macOS before 12.3 has no `readlink -f`).
while [ -L "$self" ]; do
  target=$(readlink "$self")
  case $target in
    /*) self=$target ;;
    *) self=$(dirname "$self")/$target ;;
  esac
done
resources=$(cd "$(dirname "$self")/.." && pwd)
case $(uname -s) in
  Darwin) binary="$resources/../MacOS/Switchboard" ;;
  *) binary="$resources/../switchboard-app" ;;
esac
ELECTRON_RUN_AS_NODE=1 exec "$binary" "$resources/app.asar/bin/switchboard.js" "$@"
