#!/usr/bin/env bash
# Runs one editor-client test (registered with CTest by tests/client/CMakeLists.txt):
#   run-client-test.sh vscode-compile | vscode-node | vscode-vsix OUT_DIR | nvim | nvim-default | emacs |
#                      emacs-alongside
# Environment: REVLINE_BINARY (the revline executable), REVLINE_SOURCE_DIR.
# A missing tool (node, npm, nvim, emacs) skips the test (exit 77) with a
# message; in CI (CI=true) or with REVLINE_REQUIRE_CLIENT_TESTS=1 it fails
# instead (REVLINE_REQUIRE_CLIENT_TESTS=0 skips even in CI). The Emacs test is
# optional: it is skipped without emacs even in CI, unless required explicitly.
# A missing node_modules (npm ci not run) always fails: scripts/setup runs it.
set -euo pipefail
kind=${1:?usage: run-client-test.sh vscode-compile|vscode-node|vscode-vsix OUT_DIR|nvim|emacs}
src=${REVLINE_SOURCE_DIR:?REVLINE_SOURCE_DIR is not set}
vscode="$src/editors/vscode"
client="$src/tests/client"

require=${REVLINE_REQUIRE_CLIENT_TESTS:-}
if [ -z "$require" ]; then
  case "${CI:-}" in true | 1) require=1 ;; *) require=0 ;; esac
  case "$kind" in emacs | emacs-alongside) require=0 ;; esac # Emacs is optional: tested where emacs + eglot are installed
fi
missing_tool() {
  if [ "$require" = 1 ]; then
    echo "client test $kind: $1 (required in CI or with REVLINE_REQUIRE_CLIENT_TESTS=1: failing)" >&2
    exit 1
  fi
  echo "client test $kind skipped: $1" >&2
  exit 77
}
need() { command -v "$1" >/dev/null 2>&1 || missing_tool "'$1' is not installed ($2)"; }
need_modules() {
  if [ ! -d "$1/node_modules" ]; then
    echo "client test $kind: $1/node_modules is missing: run 'npm ci' in $1 (scripts/setup does)" >&2
    exit 1
  fi
}
need_binary() {
  if [ ! -x "${REVLINE_BINARY:-}" ]; then
    echo "client test $kind: REVLINE_BINARY='${REVLINE_BINARY:-}' is not an executable" >&2
    exit 1
  fi
}

case "$kind" in
  vscode-compile)
    need node "Debian package nodejs"; need npm "Debian package npm"
    need_modules "$vscode"
    cd "$vscode" && npm run --silent compile
    ;;
  vscode-node)
    need node "Debian package nodejs"
    need_modules "$client"; need_binary
    if [ ! -f "$vscode/out/settings.js" ]; then
      echo "client test $kind: $vscode/out/settings.js is missing: run 'npm run compile' in $vscode" >&2
      exit 1
    fi
    cd "$client" && exec node --test vscode_settings.test.mjs lsp_client.test.mjs vscode_extension.test.mjs vscode_multiroot.test.mjs
    ;;
  vscode-vsix)
    out=${2:?vscode-vsix needs an output directory}
    need node "Debian package nodejs"; need npm "Debian package npm"
    need_modules "$vscode"
    rm -rf "$out" && mkdir -p "$out"
    version=$(node -p "require('$vscode/package.json').version")
    vsix="$out/revline-$version.vsix"
    (cd "$vscode" && npx --no-install vsce package --out "$vsix")
    [ -s "$vsix" ] || { echo "client test $kind: $vsix was not produced" >&2; exit 1; }
    listing=$(python3 -c 'import sys, zipfile; print("\n".join(zipfile.ZipFile(sys.argv[1]).namelist()))' "$vsix")
    for f in extension/package.json extension/out/extension.js extension/out/settings.js \
             extension/node_modules/vscode-languageclient/package.json extension/LICENSE.txt; do
      grep -qx "$f" <<<"$listing" || { echo "client test $kind: $f is not in $vsix" >&2; exit 1; }
    done
    if grep -q '^extension/src/' <<<"$listing"; then
      echo "client test $kind: TypeScript sources were packaged in $vsix" >&2; exit 1
    fi
    echo "client test $kind: produced $vsix ($(wc -c <"$vsix") bytes)"
    ;;
  nvim | nvim-default)
    need nvim "Debian package neovim"; need git "Debian package git"; need_binary
    script=nvim_client_test.lua
    [ "$kind" = nvim-default ] && script=nvim_default_setup_test.lua
    export REVLINE_NVIM_PLUGIN="$src/editors/nvim"
    home=$(mktemp -d)
    trap 'rm -rf "$home"' EXIT
    # A private HOME/XDG: no user config, the LSP log in a temporary directory.
    HOME="$home" XDG_CONFIG_HOME="$home/config" XDG_DATA_HOME="$home/data" XDG_STATE_HOME="$home/state" \
      XDG_CACHE_HOME="$home/cache" \
      nvim --headless -u NONE -i NONE -n -c "luafile $client/$script" </dev/null
    ;;
  emacs)
    need emacs "Debian packages emacs-nox elpa-eglot"
    # eglot missing (Emacs 28 without elpa-eglot): the test script exits 77 (skipped).
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
    cp "$src/editors/emacs/revline.el" "$work/"
    status=0
    (cd "$work" && emacs --batch -Q -l "$client/emacs_client_test.el" 2>&1) || status=$?
    [ "$status" = 77 ] && [ "$require" = 1 ] && missing_tool "eglot is not installed (Debian package elpa-eglot)"
    exit "$status"
    ;;
  emacs-alongside)
    need emacs "Debian packages emacs-nox elpa-eglot"; need python3 "Debian package python3"; need_binary
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
    cp "$src/editors/emacs/revline.el" "$work/"
    status=0
    (cd "$work" && REVLINE_STUB_SERVER="$client/stub_lsp_server.py" \
      emacs --batch -Q -l "$client/emacs_alongside_test.el" 2>&1) || status=$?
    [ "$status" = 77 ] && [ "$require" = 1 ] && missing_tool "eglot is not installed (Debian package elpa-eglot)"
    exit "$status"
    ;;
  *)
    echo "run-client-test.sh: unknown test '$kind'" >&2
    exit 2
    ;;
esac
