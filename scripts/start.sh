#!/usr/bin/env bash
# Builds the package, runs the example (a quick summary in the terminal), then serves the
# demo page on 127.0.0.1 until Ctrl-C.
#
#   npm start                 # http://127.0.0.1:8080/ (or a free port if 8080 is busy)
#   PORT=9000 npm start
#   bash scripts/start.sh --no-serve   # build and example only
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$REPO_ROOT"

serve=1
args=()
for arg in "$@"; do
  case "$arg" in
    --no-serve) serve=0 ;;
    *) args+=("$arg") ;;
  esac
done

bash scripts/build.sh

example="examples/compact-transcript.mjs"
section "node $example"
if [ -f "$example" ]; then
  node "$example" ${args[@]+"${args[@]}"}
else
  echo "$example does not exist yet: nothing to run"
fi

[ "$serve" = "1" ] || exit 0

section "demo page (www/)"
node scripts/demo-assets.mjs
exec node scripts/serve.mjs
