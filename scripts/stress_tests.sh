#!/usr/bin/env bash
# The test suite under load: two CPU-bound hog processes run beside `make test`, three times in a
# row (RUNS=3). Every run must pass: a test that fails here depends on timing. Each run's result
# and wall time go to build/stress/summary.txt; the full logs to build/stress/run-N.log.
#
#   scripts/stress_tests.sh            # three runs, two hogs
#   RUNS=1 HOGS=4 scripts/stress_tests.sh
set -uo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-3}
HOGS=${HOGS:-2}
out=build/stress
mkdir -p "$out"
: > "$out/summary.txt"

hogs=()
stop_hogs() { [ ${#hogs[@]} -gt 0 ] && kill "${hogs[@]}" 2>/dev/null; wait 2>/dev/null; hogs=(); }
trap stop_hogs EXIT
trap 'stop_hogs; exit 143' INT TERM  # a stopped run stops the script, not just this run's hogs

failed=0
for run in $(seq 1 "$RUNS"); do
  for _ in $(seq 1 "$HOGS"); do
    python3 -c 'while True: pass' &  # one busy core each, for the whole run
    hogs+=($!)
  done
  start=$(date +%s)
  make test > "$out/run-$run.log" 2>&1
  status=$?
  stop_hogs
  seconds=$(( $(date +%s) - start ))
  result=$(grep -E '^(=+ )?[0-9]+ (passed|failed)' "$out/run-$run.log" | tail -1)
  line="run $run: exit $status in ${seconds} s with $HOGS hogs: ${result:-no summary line}"
  echo "$line" | tee -a "$out/summary.txt"
  [ "$status" -eq 0 ] || failed=1
done
exit "$failed"
