#!/usr/bin/env bash
# The action's first step: the tool to run, written to $GITHUB_OUTPUT as bin (a command line, one
# word per line). With INPUT_EXE_URL, the single executable downloaded and checked against
# INPUT_SHA256 before it is made executable; else the package of the action's own checkout.
set -euo pipefail

out="${GITHUB_OUTPUT:?GITHUB_OUTPUT is not set}"
if [ -n "${INPUT_EXE_URL:-}" ]; then
  if ! [[ "${INPUT_SHA256:-}" =~ ^[0-9a-fA-F]{64}$ ]]; then
    echo "::error title=print-conformance::sha256 must be the 64 hex digits of the executable's SHA-256 when exe-url is given"
    exit 2
  fi
  dir="$(mktemp -d "${RUNNER_TEMP:-${TMPDIR:-/tmp}}/print-conformance-exe.XXXXXX")"
  file="$dir/print-conformance"
  # --proto limits what the URL may name: no scp:, no dict:, nothing but the web and local files.
  if ! curl -fsSL --proto '=https,http,file' --retry 3 -o "$file.download" -- "$INPUT_EXE_URL"; then
    echo "::error title=print-conformance::cannot download the executable"
    exit 2
  fi
  actual="$(sha256sum "$file.download" | cut -d' ' -f1)"
  expected="$(printf '%s' "$INPUT_SHA256" | tr 'A-F' 'a-f')"
  if [ "$actual" != "$expected" ]; then
    rm -f "$file.download"
    echo "::error title=print-conformance::the executable's SHA-256 is $actual, not the sha256 given"
    exit 2
  fi
  mv "$file.download" "$file"
  chmod 755 "$file"
  printf 'bin<<PRINT_CONFORMANCE_EOF\n%s\nPRINT_CONFORMANCE_EOF\n' "$file" >> "$out"
else
  root="${ACTION_PATH:?ACTION_PATH is not set}"
  # The checkout of the action: its locked dependencies, installed once (npm ci builds it).
  if [ ! -f "$root/dist/src/cli/main.js" ] || [ ! -d "$root/node_modules" ]; then
    (cd "$root" && npm ci --no-audit --no-fund)
  fi
  printf 'bin<<PRINT_CONFORMANCE_EOF\n%s\n%s\nPRINT_CONFORMANCE_EOF\n' "$(command -v node)" "$root/bin/print-conformance.js" >> "$out"
fi
