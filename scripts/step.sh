#!/usr/bin/env bash
# step.sh LABEL COMMAND...: run one step of `make`, saying what it is and how long it took.
# A command that exits 3 could not run on this machine and printed why: the step is skipped.
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
elif [ "$status" -eq 3 ]; then  # the command could not run here and said why: not a failure
  printf '    %s: skipped\n' "$label"
  exit 0
else
  printf '    %s: FAILED (exit %s) after %ss\n' "$label" "$status" "$elapsed" >&2
fi
exit "$status"
