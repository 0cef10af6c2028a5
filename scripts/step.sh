#!/usr/bin/env bash
# step.sh LABEL COMMAND...: run one step of `make`, saying what it is and how long it took.
set -uo pipefail
label="$1"
shift
printf '==> %s\n' "$label"
start=$(date +%s)
"$@"
status=$?
elapsed=$(( $(date +%s) - start ))
if [ "$status" -eq 0 ]; then
  printf '    %s: done in %ss\n' "$label" "$elapsed"
else
  printf '    %s: FAILED (exit %s) after %ss\n' "$label" "$status" "$elapsed" >&2
fi
exit "$status"
