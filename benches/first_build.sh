#!/usr/bin/env bash
# First debug test build of a dependent: mcp-decoy against wiremock (issue 12, item 6), and
# the size of the test binary each links (issue 43, item 5).
#
# Creates throw-away crates, each with one `#[tokio::test]`:
#   decoy-dependent     dev-dependencies: mcp-decoy (path = this repo, default features) + tokio
#   wiremock-dependent  dev-dependencies: wiremock 0.6 + tokio
#   bare-dependent      tokio alone, a test that starts nothing: what a test binary is before
#                       either mock is added, so "added" = its size minus this one's
# and builds each with `cargo test --no-run` in its own empty target directory, the way a new
# user's first `cargo test` runs, in the dev profile a new crate has (full debug info for every
# crate; DEPS_DEBUG=line-tables-only sets `[profile.dev.package."*"] debug` in every crate,
# the README's advice, to measure that setting too). Downloads do not count: `cargo fetch` fills the shared
# ~/.cargo registry first, and the timed build runs `--offline`. Each build is timed (wall,
# and user+sys CPU, which load from other processes disturbs less) and its crates counted.
#
# Usage: benches/first_build.sh [work dir]     (default: a new directory under $TMPDIR)
# Environment:
#   RUNS=n          builds of each crate, alternating (default 1); the table shows every run
#   BASE=path       also build a third crate, decoy-base-dependent, against the mcp-decoy
#                   checkout at `path` (e.g. a `git worktree` of an older commit), so that a
#                   change is measured against its parent in the same run, under the same load
#   DECOY_FEATURES  extra `features = [...]` items for mcp-decoy, e.g. '"decoy-cli"'
#   NO_DEFAULT=1    mcp-decoy with `default-features = false`
#   LOCK=path       every cargo invocation runs under `flock $LOCK` (default /tmp/cargo.lock),
#                   so two builds never share the CPUs
# Each build also writes `cargo --timings` HTML to <work dir>/<crate>/target/cargo-timings/.
# Builds run with CARGO_INCREMENTAL=0: cargo builds a path dependency (mcp-decoy here) as a
# local package, incrementally, while a user's mcp-decoy comes from the registry and is built
# once, without an incremental cache; this makes the two alike (INCREMENTAL=1 keeps cargo's
# default).
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
work="${1:-$(mktemp -d "${TMPDIR:-/tmp}/first-build.XXXXXX")}"
runs="${RUNS:-1}"
lock="${LOCK:-/tmp/cargo.lock}"
mkdir -p "$work"
work="$(cd "$work" && pwd)"

decoy_line() { # path of an mcp-decoy checkout
    local line="mcp-decoy = { path = \"$1\""
    if [[ -n "${NO_DEFAULT:-}" ]]; then line+=", default-features = false"; fi
    if [[ -n "${DECOY_FEATURES:-}" ]]; then line+=", features = [${DECOY_FEATURES}]"; fi
    echo "$line }"
}
decoy_dep="$(decoy_line "$repo")"
crates=(wiremock-dependent decoy-dependent bare-dependent)
# What a `#[tokio::test]` needs; the same for both crates.
tokio_dep='tokio = { version = "1", features = ["macros", "rt"] }'

make_crate() { # name, dev-dependency line, test body
    local dir="$work/$1"
    rm -rf "$dir"
    mkdir -p "$dir/src" "$dir/tests"
    cat >"$dir/Cargo.toml" <<EOF
[package]
name = "$1"
version = "0.0.0"
edition = "2024"
publish = false

[dev-dependencies]
$2
$tokio_dep
EOF
    if [[ -n "${DEPS_DEBUG:-}" ]]; then
        printf '\n[profile.dev.package."*"]\ndebug = "%s"\n' "$DEPS_DEBUG" >>"$dir/Cargo.toml"
    fi
    echo "// empty" >"$dir/src/lib.rs"
    printf '%s\n' "$3" >"$dir/tests/start.rs"
}

decoy_test='
use mcp_decoy::{MockMcpServer, Tool};

#[tokio::test]
async fn starts() {
    let server = MockMcpServer::builder().tool(Tool::echo()).start().await;
    assert!(server.url().starts_with("http://"));
}'
make_crate decoy-dependent "$decoy_dep" "$decoy_test"
if [[ -n "${BASE:-}" ]]; then
    base_dep="$(decoy_line "$(cd "$BASE" && pwd)")"
    make_crate decoy-base-dependent "$base_dep" "$decoy_test"
    crates+=(decoy-base-dependent)
fi

make_crate wiremock-dependent 'wiremock = "0.6"' '
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, ResponseTemplate};

#[tokio::test]
async fn starts() {
    let server = MockServer::start().await;
    Mock::given(method("POST")).respond_with(ResponseTemplate::new(200)).mount(&server).await;
    assert!(server.uri().starts_with("http://"));
}'

make_crate bare-dependent '' '
#[tokio::test]
async fn starts() {
    let answer = tokio::spawn(async { 42 }).await.expect("the task runs");
    assert_eq!(answer, 42);
}'

locked() { flock "$lock" "$@"; }

# Resolve and download outside the timed region.
for name in "${crates[@]}"; do
    (cd "$work/$name" && locked cargo fetch --quiet)
done

count_crates() { # packages in the test build's graph (normal, build and dev edges), the dependent excluded
    (cd "$work/$1" && cargo tree --offline -e normal,build,dev --prefix none --format '{p}' 2>/dev/null) |
        sed -e 's/ (\*)$//' -e 's/ (proc-macro)$//' | sort -u | grep -v "^$1 " | wc -l
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

declare -A wall cpu units size
build() { # name, run index
    local dir="$work/$1" out
    rm -rf "$dir/target"
    out="$(mktemp)"
    # `flock` first, `time` inside it: waiting for the lock is not timed.
    local incremental=0
    if [[ -n "${INCREMENTAL:-}" ]]; then incremental=1; fi
    (cd "$dir" && CARGO_INCREMENTAL="$incremental" CARGO_TARGET_DIR="$dir/target" locked /usr/bin/time -f '%e %U %S' -o "$out.time" \
        cargo test --no-run --offline --timings --message-format=json >"$out" 2>"$out.err") || {
        cat "$out.err" >&2
        exit 1
    }
    read -r w u s <"$out.time"
    wall[$1.$2]="$w"
    cpu[$1.$2]="$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.1f", u + s }')"
    units[$1.$2]="$(grep -c '"reason":"compiler-artifact"' "$out" || true)"
    # The test binary: the artifact of the `start` test target that has an executable.
    local exe
    exe="$(grep '"name":"start"' "$out" | grep -o '"executable":"[^"]*"' | head -1 | cut -d'"' -f4)"
    size[$1.$2]="$(awk -v b="$(stat -c %s "$exe")" 'BEGIN { printf "%.1f", b / 1048576 }')"
    rm -f "$out" "$out.time" "$out.err"
}

declare -A count
for ((r = 1; r <= runs; r++)); do
    for name in "${crates[@]}"; do build "$name" "$r"; done
done
for name in "${crates[@]}"; do count[$name]="$(count_crates "$name")"; done

echo
echo "first \`cargo test --no-run\` of a dependent (debug, empty target dir, downloads excluded)"
echo "$(rustc --version); $(nproc) CPUs; load average now $(cut -d' ' -f1-3 /proc/loadavg)"
echo "decoy-dependent: $decoy_dep"
if [[ -n "${DEPS_DEBUG:-}" ]]; then echo "every crate: [profile.dev.package.\"*\"] debug = \"$DEPS_DEBUG\""; fi
if [[ -n "${BASE:-}" ]]; then echo "decoy-base-dependent: $base_dep"; fi
echo "work dir: $work"
echo
added() { awk -v a="${size[$1.$2]}" -v b="${size[bare-dependent.$2]}" 'BEGIN { printf "%.1f", a - b }'; }
printf '| %-20s | %3s | %8s | %11s | %6s | %5s | %14s | %11s |\n' crate run "wall (s)" "CPU u+s (s)" crates units "test bin (MiB)" "added (MiB)"
printf '|%s|%s|%s|%s|%s|%s|%s|%s|\n' ---------------------- ----- ---------- ------------- -------- ------- ---------------- -------------
for ((r = 1; r <= runs; r++)); do
    for name in "${crates[@]}"; do
        printf '| %-20s | %3s | %8s | %11s | %6s | %5s | %14s | %11s |\n' "$name" "$r" "${wall[$name.$r]}" \
            "${cpu[$name.$r]}" "${count[$name]}" "${units[$name.$r]}" "${size[$name.$r]}" "$(added "$name" "$r")"
    done
done
echo
mocks=(decoy-dependent "${crates[@]:3}")
for ((r = 1; r <= runs; r++)); do
    for name in "${mocks[@]}"; do
        echo "run $r: $name adds $(ratio "$(added "$name" "$r")" "$(added wiremock-dependent "$r")")× what wiremock adds to the test binary"
    done
done
for ((r = 1; r <= runs; r++)); do
    for name in "${mocks[@]}"; do
        echo "run $r: $name / wiremock = $(ratio "${wall[$name.$r]}" "${wall[wiremock-dependent.$r]}")× wall," \
            "$(ratio "${cpu[$name.$r]}" "${cpu[wiremock-dependent.$r]}")× CPU"
    done
done
echo "crates: packages in \`cargo tree -e normal,build,dev\` besides the dependent;" \
    "units: crates compiled (\`compiler-artifact\` messages: build scripts, proc macros, libs, the test);" \
    "test bin: the test executable; added: that minus bare-dependent's (tokio and the test harness alone)"
