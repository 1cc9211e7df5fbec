#!/usr/bin/env bash
# Quickstart line 1: install what is missing, build coconet_demo, run it (args are passed through).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
echo "[demo] building coconet_demo"
cmake --build "$BUILD_DIR" --target coconet_demo -j2
exec "$BUILD_DIR/apps/coconet_demo" "$@"
