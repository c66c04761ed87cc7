# Shell functions the scripts that start `geosieve serve` share; sourced, not run:
#
#   . "$(dirname "$0")/serve-lib.sh"
#   geosieve_argument "$@"                 # $geosieve: the one argument, made absolute
#   wait_for_serving OUT PID NAME          # $base and $port from the server's 'serving' line
#   stop_serving PID NAME                  # SIGTERM, then exit status 0 within 30 s
#   serve_work PREFIX LINES                # $work, cleaned up (and the server killed) on exit
#   venv_install VENV PACKAGE VERSION      # PACKAGE==VERSION in the virtual environment VENV

# Sets `geosieve` to the path of the geosieve binary given as the script's only argument, made
# absolute (the scripts change folder); exits 2 with a usage line otherwise.
geosieve_argument() {
    if [ $# -ne 1 ]; then
        echo "usage: $0 PATH_TO_GEOSIEVE" >&2
        exit 2
    fi
    geosieve=$1
    case "$geosieve" in
        /*) ;;
        *) geosieve="$PWD/$geosieve" ;;
    esac
    if [ ! -x "$geosieve" ]; then
        echo "error: $geosieve is not an executable" >&2
        exit 2
    fi
}

# Waits up to 60 s for the server PID, started with `--port 0` and its standard output in OUT, to
# print 'serving http://127.0.0.1:PORT'; sets `base` (the URL) and `port`. Exits 1, naming the
# server NAME, when the server exits first, prints nothing in time, or names another address.
wait_for_serving() {
    local out=$1 pid=$2 name=$3 line=
    base=
    for _ in $(seq 1 600); do
        if line=$(grep -m 1 '^serving http://' "$out" 2> /dev/null); then
            base=${line#serving }
            break
        fi
        if ! kill -0 "$pid" 2> /dev/null; then
            echo "error: the $name server exited before it printed its 'serving' line" >&2
            exit 1
        fi
        sleep 0.1
    done
    if [ -z "$base" ]; then
        echo "error: the $name server printed no 'serving http://HOST:PORT' line within 60 s" >&2
        exit 1
    fi
    if [[ ! "$base" =~ ^http://127\.0\.0\.1:([1-9][0-9]*)$ ]]; then
        echo "error: the $name server printed '$line', expected 'serving http://127.0.0.1:PORT' with the port it picked" >&2
        exit 1
    fi
    port=${BASH_REMATCH[1]}
}

# Sends SIGTERM to the server PID and waits up to 30 s for it to exit; exits 1, naming the server
# NAME, unless it exits with status 0.
stop_serving() {
    local pid=$1 name=$2 status
    kill -TERM "$pid"
    for _ in $(seq 1 300); do
        kill -0 "$pid" 2> /dev/null || break
        sleep 0.1
    done
    if kill -0 "$pid" 2> /dev/null; then
        echo "error: the $name server was still running 30 s after SIGTERM" >&2
        exit 1
    fi
    set +e
    wait "$pid"
    status=$?
    set -e
    if [ "$status" -ne 0 ]; then
        echo "error: after SIGTERM the $name server exited with status $status, expected 0" >&2
        exit 1
    fi
}

# pip_install_missing WORK NAME[==VERSION]...: installs with pip the Python packages not installed
# (or not at the pinned version), into the system's Python (with --break-system-packages where
# pip has it); pip's errors go to WORK/pip.err and are printed when it fails.
pip_install_missing() {
    local work=$1
    shift
    local missing
    missing=$(python3 - "$@" <<'EOF_PY'
import sys
from importlib import metadata
missing = []
for requirement in sys.argv[1:]:
    name, _, version = requirement.partition("==")
    try:
        installed = metadata.version(name)
    except metadata.PackageNotFoundError:
        installed = None
    if installed is None or (version and installed != version):
        missing.append(requirement)
print(" ".join(missing))
EOF_PY
)
    [ -n "$missing" ] || return 0
    echo "installing $missing"
    # shellcheck disable=SC2086  # one word per requirement
    if ! python3 -m pip install --quiet --break-system-packages $missing 2> "$work/pip.err"; then
        if grep -q "no such option: --break-system-packages" "$work/pip.err"; then
            # shellcheck disable=SC2086
            python3 -m pip install --quiet $missing
        else
            cat "$work/pip.err" >&2
            return 1
        fi
    fi
}

# Makes `work`, a temporary folder named after PREFIX, and a trap that on exit kills the server
# `server_pid` names (when it still runs), prints the last LINES lines of its standard error
# ($work/server.log) when the script fails, and removes the folder.
serve_work() {
    work=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX")
    server_log_lines=$2
    server_pid=
    trap serve_work_cleanup EXIT
}

serve_work_cleanup() {
    local status=$?
    if [ -n "$server_pid" ] && kill -0 "$server_pid" 2> /dev/null; then
        kill -KILL "$server_pid" 2> /dev/null || true
        wait "$server_pid" 2> /dev/null || true
    fi
    if [ "$status" -ne 0 ] && [ -f "$work/server.log" ]; then
        echo "--- the server's standard error (last $server_log_lines lines) ---" >&2
        tail -n "$server_log_lines" "$work/server.log" >&2 || true
    fi
    rm -rf "$work"
    exit "$status"
}

# Installs PACKAGE==VERSION from PyPI into the virtual environment VENV (made when missing),
# unless it already holds that version.
venv_install() {
    local venv=$1 package=$2 version=$3
    if ! "$venv/bin/python" - "$package" "$version" 2> /dev/null <<'EOF_PY'
import sys
from importlib import metadata
sys.exit(metadata.version(sys.argv[1]) != sys.argv[2])
EOF_PY
    then
        echo "installing $package $version into $venv"
        python3 -m venv "$venv"
        "$venv/bin/pip" install --quiet --disable-pip-version-check "$package==$version"
    fi
}
