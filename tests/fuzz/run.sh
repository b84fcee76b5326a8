#!/usr/bin/env bash
# Runs the fuzz targets of tests/fuzz/ (cargo fuzz, libFuzzer), each for
# SECONDS, and prints one line per target: its name, the runs executed, the
# coverage (`cov:`) and features (`ft:`) of libFuzzer's last status line,
# and `clean` or the file of what it found.
#
# Usage: tests/fuzz/run.sh SECONDS [TARGET...]   (every target when none is named)
#
# - Installs cargo-fuzz (`cargo install cargo-fuzz --locked`) when
#   `cargo fuzz --version` fails; fuzzing needs the nightly toolchain.
# - Builds with `cargo +nightly fuzz build` into tests/fuzz/target, or into
#   CARGO_TARGET_DIR when it is set.
# - Fills the corpora (tests/fuzz/seeds.sh), then runs each target with
#   `-max_total_time=SECONDS -rss_limit_mb=2048` (plus FUZZ_ARGS, if set).
#   libFuzzer's whole output goes to tests/fuzz/artifacts/TARGET.log.
# - Exits 1 when a target found a crash (or a leak, an out-of-memory or a
#   timeout); the input is in tests/fuzz/artifacts/TARGET/ and replays, from
#   tests/fuzz/ (with the same CARGO_TARGET_DIR, if one was set), with
#   `cargo +nightly fuzz run --fuzz-dir . TARGET artifacts/TARGET/crash-...`.
#   The project's fuzz folder is not cargo-fuzz's default `fuzz/`, so
#   `--fuzz-dir` is always needed. Exits 2 when it cannot build or run at all.
set -uo pipefail

usage() {
    echo "usage: $0 SECONDS [TARGET...]" >&2
    exit 2
}

[ $# -ge 1 ] || usage
seconds=$1
shift
[[ $seconds =~ ^[1-9][0-9]*$ ]] || usage

fuzz_dir=$(cd "$(dirname "$0")" && pwd)
cd "$fuzz_dir" || exit 2

if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "cargo-fuzz is missing: cargo install cargo-fuzz --locked"
    cargo install cargo-fuzz --locked || exit 2
fi

all_targets=$(cargo +nightly fuzz list --fuzz-dir "$fuzz_dir") || exit 2
if [ $# -gt 0 ]; then
    targets=("$@")
    for target in "${targets[@]}"; do
        grep -qx "$target" <<<"$all_targets" || {
            echo "no fuzz target \`$target\`; the targets are:" $all_targets >&2
            exit 2
        }
    done
else
    mapfile -t targets <<<"$all_targets"
fi

build_started=$(date +%s)
if [ $# -gt 0 ]; then
    for target in "${targets[@]}"; do
        cargo +nightly fuzz build --fuzz-dir "$fuzz_dir" "$target" || exit 2
    done
else
    cargo +nightly fuzz build --fuzz-dir "$fuzz_dir" || exit 2
fi
echo "built in $(($(date +%s) - build_started)) s (target dir: ${CARGO_TARGET_DIR:-$fuzz_dir/target})"

"$fuzz_dir/seeds.sh" "${targets[@]}" || exit 2

# The value after `KEY:` in libFuzzer's status LINE (`-` when absent).
status_field() {
    local value
    value=$(grep -oE "(^|[[:space:]])$1: *[0-9]+" <<<"$2" | grep -oE '[0-9]+$')
    echo "${value:--}"
}

mkdir -p "$fuzz_dir/artifacts"
found_any=0
results=()
for target in "${targets[@]}"; do
    log=$fuzz_dir/artifacts/$target.log
    echo "fuzzing $target for $seconds s"
    # shellcheck disable=SC2086 # FUZZ_ARGS is a list of libFuzzer flags
    cargo +nightly fuzz run --fuzz-dir "$fuzz_dir" "$target" -- \
        -max_total_time="$seconds" -rss_limit_mb=2048 -print_final_stats=1 ${FUZZ_ARGS:-} \
        >"$log" 2>&1
    status=$?
    last_status=$(grep -E '^#[0-9]+' "$log" | tail -n 1)
    runs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -oE '[0-9]+$' | tail -n 1)
    [ -n "$runs" ] || runs=$(grep -oE '^#[0-9]+' <<<"$last_status" | tr -d '#')
    artifact=$(grep -oE 'Test unit written to [^ ]+' "$log" | tail -n 1 | awk '{print $NF}')
    if [ $status -eq 0 ] && [ -z "$artifact" ]; then
        result=clean
    else
        found_any=1
        result=${artifact:-"failed (exit $status); see artifacts/$target.log"}
        [ -z "$artifact" ] ||
            echo "  found ${artifact#"$fuzz_dir"/}; replay from tests/fuzz/: cargo +nightly fuzz run --fuzz-dir . $target ${artifact#"$fuzz_dir"/}"
    fi
    results+=("$(printf '%-18s %12s %8s %8s  %s' "$target" "${runs:--}" \
        "$(status_field cov "$last_status")" "$(status_field ft "$last_status")" "$result")")
done

echo
printf '%-18s %12s %8s %8s  %s\n' target runs cov ft result
printf '%s\n' "${results[@]}"
exit $found_any
