#!/usr/bin/env bash
# Installs what the Node.js and Chromium tests need, so that `go test ./...`
# runs them instead of skipping them: the npm packages of tests/mcp-client
# (the official TypeScript MCP SDK), tests/browser (playwright-core),
# tests/mcp-upstream (server-everything) and clients/typescript (the
# TypeScript SDK's generator and compiler, for tests/sdk). Node.js 20 or newer and Debian's
# Chromium at /usr/bin/chromium must be on the machine; this script says how
# to get them when they are not (it installs no system package itself).
# `make test-all` runs it and then the tests with nothing skipped.
set -euo pipefail
cd "$(dirname "$0")/.."

have() { command -v "$1" >/dev/null 2>&1; }
missing=0

if ! have node || ! have npm; then
  echo "test-deps: Node.js 20 or newer (with npm) is needed: https://nodejs.org/ or, on Debian, apt-get install nodejs npm" >&2
  missing=1
else
  major=$(node -p 'process.versions.node.split(".")[0]')
  if [ "$major" -lt 20 ]; then
    echo "test-deps: Node.js $(node --version) is too old; the tests need 20 or newer" >&2
    missing=1
  fi
fi
if [ ! -x /usr/bin/chromium ]; then
  echo "test-deps: the Connect page test drives /usr/bin/chromium (Debian: apt-get install chromium)" >&2
  missing=1
fi
[ "$missing" = 0 ] || exit 1

for d in tests/mcp-client tests/browser tests/mcp-upstream clients/typescript; do
  echo "test-deps: npm ci in $d"
  (cd "$d" && npm ci --no-audit --no-fund --loglevel=error)
done
echo "test-deps: ready; SWITCHBOARD_TEST_REQUIRE_NODE=1 SWITCHBOARD_TEST_REQUIRE_BROWSER=1 go test ./... runs every test"
