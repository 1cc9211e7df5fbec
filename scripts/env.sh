# Sourced by the scripts: the repository root as working directory, whatever
# is missing installed (bootstrap.sh), .venv first in PATH, BUILD_DIR set.
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
"$ROOT/scripts/bootstrap.sh"
export PATH="$ROOT/.venv/bin:$PATH"
BUILD_DIR="${COCONET_BUILD_DIR:-build}"
