#!/usr/bin/env bash
# The action's last step: the command's exit code, once every output is written.
set -euo pipefail
code="${EXIT_CODE:-2}"
[[ "$code" =~ ^[0-9]{1,3}$ ]] || code=2
if [ "$code" != 0 ]; then
  echo "print-conformance exited $code (see the annotations and the job summary)"
fi
exit "$code"
