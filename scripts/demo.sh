#!/usr/bin/env bash
# Quickstart line 1: install what is missing, build coconet_demo, run it (args are passed through).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
"$ROOT/scripts/bootstrap.sh"
export PATH="$ROOT/.venv/bin:$PATH"
BUILD_DIR="${COCONET_BUILD_DIR:-build}"
echo "[demo] building coconet_demo"
cmake --build "$BUILD_DIR" --target coconet_demo -j2
exec "$BUILD_DIR/apps/coconet_demo" "$@"
