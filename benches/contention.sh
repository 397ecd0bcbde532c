#!/usr/bin/env bash
# Transcript stability under CPU contention (issue 40): the rmcp scenario of tests/fixture/snapshot.rs
# (initialize, list, call, then the client closes its own session, on a fresh server each run)
# run RUNS times while one busy loop per core competes with the client and the server. Prints
# how many runs gave a transcript other than the first run's.
#
# Usage: benches/contention.sh
# Environment:
#   RUNS=n          runs of the scenario (default 1000)
#   SPINNERS=n      busy loops (default: one per core, `nproc`)
#   CARGO_FLAGS     flags for cargo test (default --all-features, the build CI makes)
set -euo pipefail
cd "$(dirname "$0")/.."

runs="${RUNS:-1000}"
spinners="${SPINNERS:-$(nproc)}"
read -r -a flags <<<"${CARGO_FLAGS:---all-features}"

# Built before the busy loops start, so they compete with the runs only.
cargo test "${flags[@]}" --test fixture --no-run

pids=()
stop() { [[ ${#pids[@]} -eq 0 ]] || kill "${pids[@]}" 2>/dev/null || true; }
trap stop EXIT
for _ in $(seq "$spinners"); do
    (while :; do :; done) &
    pids+=($!)
done

echo "== $runs runs with $spinners busy loops on $(nproc) cores"
started=$(date +%s)
status=0
MCP_DECOY_TRANSCRIPT_RUNS="$runs" cargo test "${flags[@]}" --test fixture -- --exact \
    snapshot::every_run_of_a_client_that_closes_its_own_session_gives_the_same_transcript --nocapture \
    2>&1 | grep -E "differing transcripts|runs differ|test result" || status=$?
echo "== $(( $(date +%s) - started )) s"
exit "$status"
