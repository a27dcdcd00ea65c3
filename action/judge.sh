#!/usr/bin/env bash
# The action's second step: the command, its inputs passed as arguments (never read by a shell),
# then its outputs: the exit code, the summary counts, the report folder and the SARIF file. It
# ends with success whatever the verdict, so that the outputs are written; verdict.sh fails last.
set -uo pipefail

out="${GITHUB_OUTPUT:?GITHUB_OUTPUT is not set}"
mapfile -t bin <<< "${PRINT_CONFORMANCE_BIN:?the install step gave no executable}"
command="${INPUT_COMMAND:-run}"
report_dir="${INPUT_REPORT_DIR:-print-conformance-reports}"
sarif="$report_dir/results.sarif"

# A line break in a value written to $GITHUB_OUTPUT would start an output of its own (a second
# exit-code, say): such a report folder is refused, as an unknown command is.
case "$report_dir" in
  *$'\n'* | *$'\r'*)
    echo "::error title=print-conformance::report-dir must be one line"
    printf 'exit-code=2\n' >> "$out"
    exit 0
    ;;
esac

case "$command" in
  run | validate | proxy | replay | merge) ;;
  *)
    echo "::error title=print-conformance::command must be run, validate, proxy, replay or merge"
    printf 'exit-code=2\n' >> "$out"
    exit 0
    ;;
esac

# Lines of an input as arguments: empty lines dropped, nothing expanded.
lines() {
  local line
  while IFS= read -r line || [ -n "$line" ]; do
    line="${line%$'\r'}"
    [ -n "$line" ] && printf '%s\n' "$line"
  done <<< "$1"
}

argv=("$command")
[ -n "${INPUT_BASE_URL:-}" ] && argv+=(--base-url "$INPUT_BASE_URL")
[ -n "${INPUT_TARGET:-}" ] && argv+=(--target "$INPUT_TARGET")
extra=()
mapfile -t recordings < <(lines "${INPUT_RECORDING:-}")
mapfile -t extra < <(lines "${INPUT_ARGS:-}")
# A proxy's "-- COMMAND" comes after every option of the tool's own.
before=() after=()
seen_dashes=0
for arg in "${extra[@]}"; do
  if [ "$seen_dashes" = 1 ]; then after+=("$arg")
  elif [ "$arg" = "--" ]; then seen_dashes=1
  else before+=("$arg"); fi
done
argv+=("${recordings[@]}" --report-dir "$report_dir" --sarif "$sarif" --reporter github "${before[@]}")
[ "$seen_dashes" = 1 ] && argv+=(-- "${after[@]}")

"${bin[@]}" "${argv[@]}"
code=$?

{
  printf 'exit-code=%s\n' "$code"
  printf 'report-dir=%s\n' "$report_dir"
  [ -f "$sarif" ] && printf 'sarif=%s\n' "$sarif"
  results="$report_dir/results.json"
  if [ -f "$results" ]; then
    # The summary is a flat object of counts: read without a JSON tool (the executable's image has none).
    summary="$(tr -d '\n' < "$results" | grep -o '"summary": *{[^}]*}' | head -n 1)"
    for key in passed failed warnings untested skipped; do
      value="$(printf '%s' "$summary" | grep -o "\"$key\": *[0-9]*" | grep -o '[0-9]*$')"
      printf '%s=%s\n' "$key" "${value:-0}"
    done
  fi
} >> "$out"
exit 0
