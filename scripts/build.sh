#!/usr/bin/env bash
# Builds the npm package in pkg/: release wasm, wasm-bindgen glue, optional wasm-opt, size report.
#
#   bash scripts/build.sh
#   WASM_OPT=0 bash scripts/build.sh   # skip wasm-opt
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$REPO_ROOT"

bash scripts/setup.sh --no-chromium

section "cargo build (wasm32-unknown-unknown, release)"
cargo build --release --target wasm32-unknown-unknown --lib

section "wasm-bindgen --target web"
wasm="pkg/context_compactor_bg.wasm"
rm -rf pkg/context_compactor* pkg/snippets
wasm-bindgen --target web --out-dir pkg --out-name context_compactor \
  target/wasm32-unknown-unknown/release/context_compactor.wasm

# wasm-opt from the npm `binaryen` package (Debian's binaryen 108 produces broken modules).
# The optimised module is kept only if it still compiles and instantiates with the glue.
wasm_opt="node_modules/.bin/wasm-opt"
if [ "${WASM_OPT:-1}" = "0" ]; then
  info "WASM_OPT=0: skipping wasm-opt"
elif [ ! -x "$wasm_opt" ]; then
  info "no $wasm_opt (run npm install): skipping wasm-opt"
else
  section "wasm-opt -Oz"
  tmp="target/context_compactor_bg.opt.wasm"
  # The feature set rustc's wasm32-unknown-unknown target emits by default.
  # --low-memory-unused: rustc puts the stack below the data, at [0, 1 MiB), so the
  # first KiB is reached only by a stack about to overflow; it lets wasm-opt fold
  # constant offsets into loads and stores. --converge: repeat while it still shrinks.
  # --one-caller-inline-max-function-size=20: a function with one caller is inlined
  # only when small: inlining the larger ones saves raw bytes, but the module then
  # compresses worse; a smaller limit saves more but runs more instructions.
  if "$wasm_opt" -Oz --low-memory-unused --converge --one-caller-inline-max-function-size=20 \
       --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
       --enable-mutable-globals --enable-reference-types --enable-multivalue \
       --strip-debug --strip-producers --strip-target-features \
       "$wasm" -o "$tmp" \
     && node scripts/check-wasm.mjs "$tmp"; then
    mv "$tmp" "$wasm"
    info "kept the wasm-opt output"
  else
    rm -f "$tmp"
    echo "WARNING: wasm-opt failed or its output does not load; keeping the unoptimised module" >&2
  fi
fi

node scripts/check-wasm.mjs "$wasm"

section "size"
node scripts/wasm-size.mjs "$wasm" target/wasm-size.json
