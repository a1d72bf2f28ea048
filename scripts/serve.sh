#!/usr/bin/env bash
# Installs what is missing, builds the web page and serves it on
# http://127.0.0.1:8080 (Ctrl-C stops the server).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
ADDRESS=127.0.0.1
PORT="${PORT:-8080}"

"$ROOT/scripts/install-deps.sh"
export PATH="$ROOT/node_modules/.bin:$HOME/.cargo/bin:$PATH"

echo "==> trunk build --release"
trunk build --release

echo "==> serving dist/"
echo
echo "    Tarmac Lens: http://$ADDRESS:$PORT/"
echo
exec python3 -m http.server "$PORT" --bind "$ADDRESS" --directory "$ROOT/dist"
