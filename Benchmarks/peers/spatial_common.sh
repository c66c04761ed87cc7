# Shared by run_w2.sh and run_w3.sh (sourced, not run): their options, the release build of
# geosieve-bench plus one C peer, and the data folder.

# Reads --points, --seed, --rounds, --repeat and --keep-data into $points, $seed, $rounds,
# $repeat and $keep.
parse_spatial_options() {
    points=1000000
    seed=42
    rounds=5
    repeat=1
    keep=""
    while [ $# -gt 0 ]; do
        case "$1" in
            --points) points="$2"; shift 2 ;;
            --seed) seed="$2"; shift 2 ;;
            --rounds) rounds="$2"; shift 2 ;;
            --repeat) repeat="$2"; shift 2 ;;
            --keep-data) keep="$2"; shift 2 ;;
            -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
            *) echo "$(basename "$0"): unknown argument $1" >&2; exit 2 ;;
        esac
    done
}

# Builds geosieve-bench in release mode (its path in $bin) and compiles the C peer $2 into $3.
build_bench_and_peer() {
    local peer_source="$1" peer_binary="$2"
    echo "== building geosieve-bench (release) and the GEOS C peer" >&2
    swift build -c release --product geosieve-bench >&2
    bin="$(swift build -c release --product geosieve-bench --show-bin-path)/geosieve-bench"
    mkdir -p "$(dirname "$peer_binary")"
    # shellcheck disable=SC2046  # pkg-config's flags are meant to split
    cc -O2 -o "$peer_binary" "$peer_source" $(pkg-config --cflags --libs geos)
}

# Sets $data: --keep-data's folder, or a temporary one removed on exit (named after $1).
make_data_folder() {
    if [ -n "$keep" ]; then
        data="$keep"
        mkdir -p "$data"
    else
        data="$(mktemp -d "${TMPDIR:-/tmp}/geosieve-$1.XXXXXX")"
        trap 'rm -rf "$data"' EXIT
    fi
}
