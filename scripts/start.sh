#!/usr/bin/env bash
# Builds the package, then runs the example.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$REPO_ROOT"

bash scripts/build.sh

example="examples/compact-transcript.mjs"
section "node $example"
if [ -f "$example" ]; then
  node "$example" "$@"
else
  echo "$example does not exist yet: nothing to run"
fi
