#!/usr/bin/env bash
# Builds Singulab for a browser into a static folder (default `web-site/`): index.html, the
# .wasm and its JavaScript glue. Put the folder on any static web host; a link such as
# `.../index.html?lesson=a02_branches&presentation=1` opens what it names (README, "In a
# browser"). Installs what it needs: the wasm32 target (rustup) and wasm-bindgen-cli at the
# version Cargo.lock pins (cargo install).
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-web-site}"
target_dir="${CARGO_TARGET_DIR:-$HOME/.cache/singulab-target}"

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
    echo "web.sh: installing the Rust target wasm32-unknown-unknown (rustup)"
    rustup target add wasm32-unknown-unknown
fi
# The CLI must be the version of the wasm-bindgen crate the build links.
version=$(awk '$0 == "name = \"wasm-bindgen\"" { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
if ! wasm-bindgen --version 2>/dev/null | grep -qx "wasm-bindgen $version"; then
    echo "web.sh: installing wasm-bindgen-cli $version (cargo install)"
    cargo install wasm-bindgen-cli --version "$version"
fi

cargo build --profile web --target wasm32-unknown-unknown --bin singulab
mkdir -p "$out"
wasm-bindgen --target web --no-typescript --out-dir "$out" --out-name singulab \
    "$target_dir/wasm32-unknown-unknown/web/singulab.wasm"
cp web/index.html "$out/index.html"
bytes=$(stat -c %s "$out/singulab_bg.wasm")
gzipped=$(gzip -9 -c "$out/singulab_bg.wasm" | wc -c)
echo "web.sh: wrote $out/ (singulab_bg.wasm: $bytes bytes, $gzipped gzipped)"
