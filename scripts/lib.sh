# Shared helpers for the scripts in this folder; source it, don't run it.

# Repository root (the folder holding Cargo.toml), whichever directory we were started from.
REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export REPO_ROOT

# Tools installed by `cargo install` live here; make sure they are found.
case ":$PATH:" in
  *":$HOME/.cargo/bin:"*) ;;
  *) export PATH="$HOME/.cargo/bin:$PATH" ;;
esac

section() {
  printf '\n==================== %s ====================\n' "$*"
}

info() {
  printf '[%s] %s\n' "$(basename "$0" .sh)" "$*"
}

# The wasm-bindgen version pinned in Cargo.toml (`wasm-bindgen = "=X.Y.Z"` or
# `wasm-bindgen = { version = "=X.Y.Z", ... }`). wasm-bindgen-cli must match it exactly.
wasm_bindgen_version() {
  local v
  v="$(grep -E '^[[:space:]]*wasm-bindgen[[:space:]]*=' "$REPO_ROOT/Cargo.toml" \
        | head -n1 | grep -oE '[0-9]+\.[0-9]+\.[0-9]+' | head -n1)"
  if [ -z "$v" ]; then
    echo "could not read the wasm-bindgen version from Cargo.toml" >&2
    return 1
  fi
  printf '%s\n' "$v"
}
