#!/usr/bin/env bash
# Builds GeoSieve's fuzz targets with libFuzzer and AddressSanitizer and runs each for a bounded
# time (or number of inputs), on a corpus that starts from seeds written from the tests and grows
# from run to run in Fuzz/corpus/. Inputs that crash, trap, hang (> 10 s) or break a checked
# property are saved in Fuzz/crashes/. Before fuzzing, every target replays the inputs of
# Fuzz/Regressions/<target>/, the crashes found so far.
#
#   Fuzz/run.sh                          every target, 60 s each
#   Fuzz/run.sh --seconds 600 fuzz-where one target, 10 minutes
#   Fuzz/run.sh --runs 2000000           every target, 2 M inputs each
#   Fuzz/run.sh --jobs 2                 two targets at a time
#   Fuzz/run.sh --runs 300000 --seed 1   a repeatable run
#   Fuzz/run.sh --runs 150000 --seconds 20 --seed 1
#                                        at most 150,000 inputs and 20 s each, whichever comes
#                                        first (as CI does: repeatable for the fast targets)
#   Fuzz/run.sh --regressions            only replay Fuzz/Regressions
#   Fuzz/run.sh --build-only             only build the targets (CI builds them early, in the
#                                        background, and runs them later)
#
# Prints one line per target (inputs run, inputs per second, coverage, slowest input, result)
# and their total; exits 1 when a target failed.
set -euo pipefail
cd "$(dirname "$0")"
script="$PWD/$(basename "$0")"

targets_all=(fuzz-where fuzz-wkt fuzz-wkb fuzz-geojson fuzz-esrijson fuzz-features fuzz-cql2 fuzz-formats)
seconds=""
runs=""
seed=""
jobs=1
regressions_only=no
build_only=no
targets=()
while [[ $# -gt 0 ]]; do
    case "$1" in
        --seconds) seconds="$2"; shift 2 ;;
        --runs) runs="$2"; shift 2 ;;
        --jobs) jobs="$2"; shift 2 ;;
        --seed) seed="$2"; shift 2 ;;
        --regressions) regressions_only=yes; shift ;;
        --build-only) build_only=yes; shift ;;
        -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$script"; exit 0 ;;
        fuzz-*) targets+=("$1"); shift ;;
        *) echo "run.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
    esac
done
[[ ${#targets[@]} -gt 0 ]] || targets=("${targets_all[@]}")

if [[ "$(uname)" != "Linux" ]]; then
    echo "run.sh: libFuzzer ships with the Swift toolchain on Linux only" >&2
    exit 2
fi

build=.build/fuzz
echo "== building the fuzz targets (release, -sanitize=fuzzer,address)"
# A failed build stops here: a binary left by an earlier build must not be fuzzed as this one.
build_status=0
mkdir -p .build
swift build -c release --build-path "$build" \
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library -Xswiftc -DFUZZING \
    -Xswiftc -use-ld=lld > "$build.log" 2>&1 || build_status=$?
grep -E "error|warning: unre|Build|Compiling GeoSieve" "$build.log" || true
if [[ $build_status -ne 0 ]]; then
    echo "run.sh: the fuzz build failed (status $build_status); its log: $build.log" >&2
    exit 1
fi
[[ $build_only == no ]] || exit 0
bin="$build/release"
for target in "${targets[@]}"; do
    [[ -x "$bin/$target" ]] || { echo "run.sh: $target did not build" >&2; exit 1; }
done

# The Swift runtime's backtracer would otherwise take over crashes that libFuzzer must record.
export SWIFT_BACKTRACE=enable=no
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0:allocator_may_return_null=1}"

options_for() {
    case "$1" in
        fuzz-where) echo "-max_len=4096 -dict=Dictionaries/where.dict" ;;
        fuzz-wkt) echo "-max_len=4096 -dict=Dictionaries/wkt.dict" ;;
        fuzz-wkb) echo "-max_len=4096" ;;
        fuzz-geojson|fuzz-esrijson) echo "-max_len=8192 -dict=Dictionaries/json.dict" ;;
        fuzz-features) echo "-max_len=16384 -dict=Dictionaries/json.dict" ;;
        fuzz-cql2) echo "-max_len=4096 -dict=Dictionaries/cql2.dict" ;;
        fuzz-formats) echo "-max_len=65536 -dict=Dictionaries/parquet.dict" ;;
    esac
}

failed=0
mkdir -p logs
echo "== replaying Fuzz/Regressions"
for target in "${targets[@]}"; do
    folder="Regressions/$target"
    [[ -d "$folder" ]] && compgen -G "$folder/*" > /dev/null || continue
    passed=0
    failures=()
    for input in "$folder"/*; do
        if "$bin/$target" -timeout=10 -rss_limit_mb=4096 "$input" > ".build/regression.log" 2>&1; then
            passed=$((passed + 1))
        else
            failures+=("$(basename "$input")")
            cp .build/regression.log "logs/$target-regression-$(basename "$input").log"
        fi
    done
    if [[ ${#failures[@]} -eq 0 ]]; then
        echo "$target: $passed regression inputs pass"
    else
        echo "$target: ${#failures[@]} regression inputs fail: ${failures[*]} (logs in Fuzz/logs/)"
        failed=1
    fi
done
[[ "$regressions_only" == yes ]] && exit "$failed"

echo "== writing seeds from the tests"
rm -rf .build/seeds
"$bin/fuzz-seeds" .build/seeds > /dev/null

mkdir -p crashes logs
run_target() {
    local target="$1" limit
    mkdir -p "corpus/$target"
    limit=""
    if [[ -n "$runs" ]]; then limit="-runs=$runs"; fi
    if [[ -n "$seconds" || -z "$runs" ]]; then limit="$limit -max_total_time=${seconds:-60}"; fi
    if [[ -n "$seed" ]]; then limit="$limit -seed=$seed"; fi
    # shellcheck disable=SC2046
    "$bin/$target" "corpus/$target" ".build/seeds/$target" $limit $(options_for "$target") \
        -timeout=10 -rss_limit_mb=4096 -print_final_stats=1 \
        -artifact_prefix="crashes/$target-" > "logs/$target.log" 2>&1
}
export -f run_target options_for
export bin runs seconds seed

limits=()
if [[ -n "$runs" ]]; then limits+=("$runs inputs"); fi
if [[ -n "$seconds" || -z "$runs" ]]; then limits+=("${seconds:-60} s"); fi
echo "== fuzzing: ${targets[*]} ($(IFS=/; echo "${limits[*]}") each at most, $jobs at a time)"
printf '%s\n' "${targets[@]}" | xargs -P "$jobs" -I{} bash -c 'run_target {} || true'

total=0
for target in "${targets[@]}"; do
    log="logs/$target.log"
    executed=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo 0)
    speed=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo 0)
    coverage=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*$' || echo 0)
    slowest=$(grep -o 'stat::slowest_unit_time_sec: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo 0)
    if grep -qE '^==[0-9]+==ERROR|deadly signal|fuzz property failed|ALARM: working on the last Unit|out-of-memory' "$log"; then
        result="FAILED: $(grep -m1 -E 'ERROR:|fuzz property failed|ALARM|out-of-memory|deadly signal' "$log" | cut -c1-160) (Fuzz/logs/$target.log, input in Fuzz/crashes/)"
        failed=1
    else
        result="ok"
    fi
    total=$((total + ${executed:-0}))
    printf '%-14s %12s inputs %8s/s  coverage %6s  slowest %3s s  %s\n' \
        "$target" "${executed:-0}" "${speed:-0}" "${coverage:-0}" "${slowest:-0}" "$result"
done
echo "total: $total inputs"
exit "$failed"
