#!/usr/bin/env bash
# A throwaway PostgreSQL + PostGIS server for the PostGIS tests, on a loopback port in a
# temporary directory.
#
#   eval "$(Scripts/postgis-server.sh start)"   # exports GEOSIEVE_POSTGIS_URL and GEOSIEVE_POSTGIS_DIR
#   Scripts/postgis-server.sh stop "$GEOSIEVE_POSTGIS_DIR"
#
# start prints the export lines on standard output (notes go to standard error) and exits with
# status 1 when the server cannot be started; the tests then skip with a notice. The server runs
# as the `postgres` user when started by root (initdb refuses root), trusts local connections,
# listens on 127.0.0.1 only, and has the postgis extension in the database `geosieve`.
set -euo pipefail

. "$(dirname "$0")/pg-lib.sh"

# A certificate authority and a server certificate it signed, for localhost (not 127.0.0.1), in
# folder $1 (ca.crt, server.crt, server.key), valid two days; and other.crt, an authority that
# signed nothing.
make_certificates() {
    mkdir -p "$1"
    (
        cd "$1"
        openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=GeoSieve test authority" -keyout ca.key -out ca.crt
        openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=GeoSieve other authority" -keyout other.key -out other.crt
        openssl req -newkey rsa:2048 -nodes -subj "/CN=localhost" -keyout server.key -out server.csr
        printf 'subjectAltName=DNS:localhost\n' > server.ext
        openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 2 -extfile server.ext -out server.crt
        chmod 600 server.key
        chmod 644 ca.crt other.crt server.crt
    )
}

case "${1:-}" in
start)
    bin=$(pg_bindir) || { echo "postgis-server: PostgreSQL is not installed" >&2; exit 1; }
    dir=$(mktemp -d /tmp/geosieve-postgis.XXXXXX)
    chmod 755 "$dir"
    if [ "$(id -u)" = 0 ]; then chown postgres "$dir"; fi
    # A free port: ask the kernel for one.
    port=$(free_port)
    as_postgres_owner "$bin/initdb" -D "$dir/data" -U geosieve --auth=trust --encoding=UTF8 --locale=C.UTF-8 > "$dir/initdb.log" 2>&1 \
        || { echo "postgis-server: initdb failed (see $dir/initdb.log)" >&2; exit 1; }
    # TLS with a certificate of a throwaway certificate authority (for localhost, not 127.0.0.1),
    # for the sslmode tests; without openssl the server offers no TLS and they are skipped.
    tls_options=""
    if command -v openssl > /dev/null && make_certificates "$dir/tls" > "$dir/tls.log" 2>&1; then
        if [ "$(id -u)" = 0 ]; then chown -R postgres "$dir/tls"; fi
        tls_options="-c ssl=on -c ssl_cert_file=$dir/tls/server.crt -c ssl_key_file=$dir/tls/server.key"
    fi
    as_postgres_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w \
        -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off $tls_options" start > /dev/null \
        || { echo "postgis-server: the server did not start (see $dir/server.log)" >&2; exit 1; }
    "$bin/createdb" -h 127.0.0.1 -p "$port" -U geosieve geosieve
    if ! "$bin/psql" -h 127.0.0.1 -p "$port" -U geosieve -d geosieve -q -c "CREATE EXTENSION postgis" > /dev/null 2>"$dir/postgis.log"; then
        echo "postgis-server: CREATE EXTENSION postgis failed (see $dir/postgis.log)" >&2
        as_postgres_owner "$bin/pg_ctl" -D "$dir/data" -m immediate stop > /dev/null || true
        exit 1
    fi
    echo "postgis-server: PostgreSQL with PostGIS on 127.0.0.1:$port ($dir)" >&2
    echo "export GEOSIEVE_POSTGIS_URL=postgresql://geosieve@127.0.0.1:$port/geosieve"
    echo "export GEOSIEVE_POSTGIS_DIR=$dir"
    if [ -n "$tls_options" ]; then echo "export GEOSIEVE_POSTGIS_CA=$dir/tls/ca.crt"; fi
    ;;
stop)
    dir=${2:?usage: postgis-server.sh stop DIR}
    bin=$(pg_bindir) || exit 0
    as_postgres_owner "$bin/pg_ctl" -D "$dir/data" -m fast stop > /dev/null 2>&1 || true
    rm -rf "$dir"
    ;;
*)
    echo "usage: postgis-server.sh start | stop DIR" >&2
    exit 2
    ;;
esac
