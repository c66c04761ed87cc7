# Shell functions the scripts that start PostgreSQL clusters share; sourced, not run:
#
#   . Scripts/pg-lib.sh
#   pg_bindir                  # prints the folder of PostgreSQL's programs (status 1 without one)
#   as_postgres_owner CMD…     # runs CMD as the `postgres` user when run by root (initdb refuses root)
#   free_port                  # prints a free loopback TCP port

pg_bindir() {
    local dir
    for dir in /usr/lib/postgresql/*/bin; do
        if [ -x "$dir/initdb" ]; then
            echo "$dir"
            return 0
        fi
    done
    return 1
}

as_postgres_owner() {
    if [ "$(id -u)" = 0 ]; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
