#!/usr/bin/env bash
# How much distinct machine code a server runs to serve its connections, the fixture's
# against wiremock's, in the debug build users' tests run. A debug answer's time follows this
# more than its instruction count: each wake-up of the server's thread finds its code cold
# again (benches/README.md, "A debug answer's time is the code it touches").
#   benches/peers/footprint.sh               # 20 lives each (LIVES)
# Needs valgrind. Counts every executed 64-byte line and 4 KiB page of code inside hyper's
# connection future (the request's head, the service, the answer), over all the lives.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
target="${CARGO_TARGET_DIR:-$root/target}"
export CARGO_TARGET_DIR="$target/peers"
# A count the bench cannot read would make it run its whole start-up suite under valgrind.
lives="${LIVES:-20}"
[[ "$lives" =~ ^[1-9][0-9]{0,4}$ ]] || { echo "LIVES must be a whole number from 1 to 99999, not '$lives'" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "footprint.sh needs valgrind (apt-get install valgrind)" >&2; exit 2; }
cargo build --manifest-path "$root/benches/peers/Cargo.toml"
peers="$CARGO_TARGET_DIR/debug/mcp-decoy-peers"
ulimit -n "$(ulimit -Hn)" || true
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
# The fixture serves with hyper's plain HTTP/1 connection, wiremock with its upgradeable one.
declare -A connection=(
  [fixture]='*hyper::server::conn::http1::Connection<*as core::future::future::Future>::poll'
  [wiremock]='*hyper::server::conn::http1::UpgradeableConnection<*as core::future::future::Future>::poll'
)
echo "kind,lives,instructions_per_life,code_lines,code_kib,code_pages"
for kind in fixture wiremock; do
  PEERS_LIVES="$lives" valgrind --tool=callgrind --dump-instr=yes \
    --toggle-collect="${connection[$kind]}" --callgrind-out-file="$out/$kind.cg" \
    "$peers" startup "$kind" >/dev/null 2>"$out/$kind.err" \
    || { cat "$out/$kind.err" >&2; exit 1; }
  # Cost lines start with an address: absolute (0x…), relative (+n, -n) or the same (*).
  awk -v kind="$kind" -v lives="$lives" '
    function hex(text,    value, i) {
      value = 0
      for (i = 3; i <= length(text); i++) value = value * 16 + index("0123456789abcdef", substr(text, i, 1)) - 1
      return value
    }
    /^summary:/ { total = $2 }
    /^0x/ { at = hex($1); seen[int(at / 64)] = 1; next }
    /^[+-][0-9]/ { at += $1; seen[int(at / 64)] = 1; next }
    /^\*/ { seen[int(at / 64)] = 1 }
    END {
      for (line in seen) { lines++; pages[int(line / 64)] = 1 }
      for (page in pages) npages++
      printf "%s,%d,%d,%d,%d,%d\n", kind, lives, total / lives, lines, lines * 64 / 1024, npages
    }' "$out/$kind.cg"
done
