#!/usr/bin/env bash
# Writes the build's file list and content hash into sw.js (the offline copy
# of the app, www/sw.js), so that each build has a service worker of its own.
# Run by Trunk after each build (post_build hook, Trunk.toml) on its staging
# directory, or by hand on a built directory: scripts/sw-manifest.sh DIR.
set -euo pipefail

dir="${1:-${TRUNK_STAGING_DIR:?usage: sw-manifest.sh DIR}}"
cd "$dir"
[ -f sw.js ] || { echo "sw-manifest: $dir/sw.js is missing" >&2; exit 1; }

mapfile -t files < <(find . -type f ! -name sw.js | sed 's|^\./||' | LC_ALL=C sort)
version=$(sha256sum -- "${files[@]}" | sha256sum | cut -c1-16)
# The Query pane's engine is cached when the pane first fetches it (sw.js's
# LAZY), not at the first visit: the first load does not grow by it.
mapfile -t eager < <(printf '%s\n' "${files[@]}" | grep -v -e '^sql/' -e '^sql-worker\.js$')
list=$(printf '"%s",' "${eager[@]}")
line="const BUILD = { version: '$version', files: [${list%,}] };"

tmp=$(mktemp)
awk -v line="$line" '/^const BUILD = /{ print line; next } { print }' sw.js >"$tmp"
grep -q "version: '$version'" "$tmp" || { echo "sw-manifest: no BUILD line in sw.js" >&2; rm -f "$tmp"; exit 1; }
cat "$tmp" >sw.js
rm -f "$tmp"
