#!/usr/bin/env bash
# Issue 16's comparison: mcp-decoy's fixture and app against rmcp 3.11's server, wiremock 0.6
# and a bare axum handler, all in one run. Release by default; PROFILE=dev for the debug
# build users' tests run. ROUNDS (6) and SECS (3) set the throughput rounds, STARTUP_ROUNDS
# (10) the alternating start-up rounds.
#   benches/peers/run.sh            # everything
#   ONLY=startup benches/peers/run.sh   # or ONLY=compare
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
profile="${PROFILE:-release}"
dir="$([ "$profile" = dev ] && echo debug || echo "$profile")"
target="${CARGO_TARGET_DIR:-$root/target}"
export CARGO_TARGET_DIR="$target/peers"
cargo build --profile "$profile" --manifest-path "$root/benches/peers/Cargo.toml"
peers="$CARGO_TARGET_DIR/$dir/mcp-decoy-peers"
# 1,000 servers at once need more descriptors than the usual soft limit of 1,024.
ulimit -n "$(ulimit -Hn)" || true
if [ "${ONLY:-startup}" = startup ] || [ -z "${ONLY:-}" ]; then
  # The start-up figures compare servers only if the client reads the same answer from each.
  "$peers" answers
  echo "## start-up ($profile)"
  for kind in fixture wiremock rmcp-stateless axum; do "$peers" startup "$kind"; done
  echo "## idle memory, clients in a child process ($profile)"
  for kind in fixture wiremock rmcp-stateless axum; do "$peers" idle "$kind"; done
  echo "## start-up in alternating rounds ($profile)"
  "$peers" startup-rounds "${STARTUP_ROUNDS:-10}"
  # The same with each process on one core: no wake-up crosses cores, so a life costs what
  # its CPU costs, whatever the host does with idle cores.
  echo "## start-up in alternating rounds, one core per process ($profile)"
  PEERS_ONE_CORE=1 "$peers" startup-rounds "${STARTUP_ROUNDS:-10}"
fi
if [ "${ONLY:-compare}" = compare ] || [ -z "${ONLY:-}" ]; then
  (cd "$root" && CARGO_TARGET_DIR="$target" cargo build --profile "$profile" --features decoy-cli --bin mcp-decoy)
  echo "## throughput ($profile)"
  "$peers" compare "$target/$dir/mcp-decoy" "${ROUNDS:-6}" "${SECS:-3}"
fi
