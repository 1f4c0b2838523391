#!/usr/bin/env bash
# run.sh BUILD_DIR — generates a ~60 MB PTX module from the corpus and measures the front end on it.
set -euo pipefail
build=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
python3 "$here/gen-large.py" "$build/bench-large.ptx" 60
"$build/bench/frontend/bench-frontend" "$build/bench-large.ptx" 3
