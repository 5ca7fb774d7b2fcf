#!/usr/bin/env bash
# Installs what building and testing need. Idempotent, and quick when all is present.
#
#   bash scripts/setup.sh               # everything, Chromium + chromedriver included
#   bash scripts/setup.sh --no-chromium # build-only path (also: SKIP_CHROMIUM=1)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$REPO_ROOT"

want_chromium=1
[ "${SKIP_CHROMIUM:-0}" = "1" ] && want_chromium=0
for arg in "$@"; do
  case "$arg" in
    --no-chromium) want_chromium=0 ;;
    *) echo "unknown argument: $arg" >&2; exit 2 ;;
  esac
done

# 1. Rust target for the wasm build.
if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  info "adding rust target wasm32-unknown-unknown"
  rustup target add wasm32-unknown-unknown
fi

# 2. wasm-bindgen-cli, exactly the version Cargo.toml pins (also provides wasm-bindgen-test-runner).
wb_version="$(wasm_bindgen_version)"
have_version="$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)"
if [ "$have_version" != "$wb_version" ] || ! command -v wasm-bindgen-test-runner >/dev/null 2>&1; then
  info "installing wasm-bindgen-cli $wb_version (found: ${have_version:-none}); this takes a few minutes"
  # No --locked: the crate's lock file does not build with current toolchains.
  cargo install wasm-bindgen-cli --version "$wb_version" --force
fi

# 3. Node dev dependencies (playwright-core, binaryen, SDKs, and the link to ./pkg).
if [ -f package-lock.json ]; then
  if [ ! -f node_modules/.package-lock.json ] \
     || [ package-lock.json -nt node_modules/.package-lock.json ] \
     || [ package.json -nt node_modules/.package-lock.json ]; then
    info "npm ci"
    npm ci --no-audit --no-fund
  fi
else
  info "npm install"
  npm install --no-audit --no-fund
fi

# 4. Chromium + chromedriver for the browser tests.
if [ "$want_chromium" = "1" ]; then
  if [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ]; then
    :
  elif [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    info "installing chromium and chromium-driver with apt-get"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update
    apt-get install -y --no-install-recommends chromium chromium-driver
  else
    echo "WARNING: /usr/bin/chromium or /usr/bin/chromedriver is missing and cannot be installed" >&2
    echo "         automatically (need root and apt-get). Install them with:" >&2
    echo "           sudo apt-get update && sudo apt-get install -y chromium chromium-driver" >&2
    echo "         Browser tests will fail (or set SKIP_BROWSER_TESTS=1)." >&2
  fi
fi

info "ready (wasm-bindgen $wb_version, node $(node --version))"
