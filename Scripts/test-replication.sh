#!/usr/bin/env bash
# Scale-out on one machine: a PostgreSQL primary and a hot-standby replica (streaming
# replication, two clusters on loopback ports in a temporary folder) and two `geosieve serve`
# processes over one PostGIS table — server A reading the replica, server B the primary.
#
#   Scripts/test-replication.sh .build/debug/geosieve
#
# Checks, each printed as `ok …` (the script exits 1 at the first that fails):
# 1. both servers answer the table's count and the same page of features;
# 2. rows written on the primary (as another writer would) are in server B's answers at once,
#    and in server A's once the replica has replayed the primary's WAL up to the write
#    (`pg_last_wal_replay_lsn()` at least the primary's `pg_current_wal_lsn()` after it) —
#    how a client that wrote reads its own writes through a replica;
# 3. while both servers answer a stream of requests, a burst of writes on the primary shows up
#    in every later answer of B and, after replay, of A;
# 4. with the replica stopped, server A answers 502 (its connection broke) or 503 (no connection
#    within its query timeout), never after the timeout, and B goes on;
#    with the replica started again, server A answers again, with the primary's rows.
# The clusters run as the `postgres` user when started by root; everything is stopped and
# removed on exit.
set -euo pipefail
cd "$(dirname "$0")/.."
. Scripts/serve-lib.sh
. Scripts/pg-lib.sh
geosieve_argument "$@"

bin=$(pg_bindir) || { echo "test-replication: PostgreSQL is not installed" >&2; exit 1; }
root=$(mktemp -d /tmp/geosieve-replication.XXXXXX)
chmod 755 "$root"
if [ "$(id -u)" = 0 ]; then chown postgres "$root"; fi
primary_port=$(free_port)
replica_port=$(free_port)
pids=()
cleanup() {
    local status=$?
    for pid in "${pids[@]}"; do kill "$pid" 2> /dev/null || true; done
    for cluster in primary replica; do
        [ -d "$root/$cluster" ] && as_postgres_owner "$bin/pg_ctl" -D "$root/$cluster" -m immediate stop > /dev/null 2>&1 || true
    done
    if [ "$status" -ne 0 ]; then
        for log in "$root"/*.log; do echo "== $log"; tail -20 "$log"; done
    fi
    rm -rf "$root"
}
trap cleanup EXIT

sql() { "$bin/psql" -h 127.0.0.1 -p "$1" -U geosieve -d geosieve -X -q -t -A -c "$2"; }
start_cluster() {
    as_postgres_owner "$bin/pg_ctl" -D "$root/$1" -l "$root/$1.log" -w \
        -o "-p $2 -k $root -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off" start > /dev/null
}

# The primary: WAL for a streaming replica (initdb's trust rules admit replication from 127.0.0.1).
as_postgres_owner "$bin/initdb" -D "$root/primary" -U geosieve --auth=trust --encoding=UTF8 --locale=C.UTF-8 > "$root/initdb.log" 2>&1
cat >> "$root/primary/postgresql.conf" <<CONF
wal_level = replica
max_wal_senders = 4
hot_standby = on
CONF
start_cluster primary "$primary_port"
"$bin/createdb" -h 127.0.0.1 -p "$primary_port" -U geosieve geosieve
sql "$primary_port" "CREATE EXTENSION postgis" > /dev/null
sql "$primary_port" "CREATE TABLE places (id bigint PRIMARY KEY, name text, geom geometry(Point, 4326));
    INSERT INTO places SELECT i, 'place ' || i, ST_SetSRID(ST_MakePoint(i % 360 - 180, (i * 7) % 170 - 85), 4326)
    FROM generate_series(1, 1000) AS i; ANALYZE places" > /dev/null

# The replica: a base backup of the primary that follows it (-R writes standby.signal and the
# connection to stream from).
as_postgres_owner "$bin/pg_basebackup" -h 127.0.0.1 -p "$primary_port" -U geosieve -D "$root/replica" -R -X stream -c fast > "$root/basebackup.log" 2>&1
start_cluster replica "$replica_port"
[ "$(sql "$replica_port" "SELECT pg_is_in_recovery()")" = t ] || { echo "FAIL: the replica is not a standby"; exit 1; }
echo "ok primary on $primary_port, hot standby on $replica_port ($SECONDS s)"

# Server A reads the replica, server B the primary.
serve() {
    "$geosieve" serve "postgresql://geosieve@127.0.0.1:$2/geosieve?table=places:places" --port 0 --query-timeout 3 \
        --log-level warning > "$root/$1.out" 2> "$root/$1.log" &
    pids+=($!)
    wait_for_serving "$root/$1.out" "$!" "$1"
    eval "$1_base=\$base"
}
serve server_a "$replica_port"
serve server_b "$primary_port"
query="/arcgis/rest/services/places/FeatureServer/0/query"
count() { curl -s "$1$query?where=1%3D1&returnCountOnly=true&f=json" | python3 -c 'import json,sys; print(json.load(sys.stdin).get("count", -1))'; }
status() { curl -s -o /dev/null -w '%{http_code}' "$1$query?where=1%3D1&returnCountOnly=true&f=json"; }

# 1. The same answers from both.
[ "$(count "$server_a_base")" = 1000 ] && [ "$(count "$server_b_base")" = 1000 ] || { echo "FAIL: counts"; exit 1; }
page="$query?where=id%20%3C%3D%2020&outFields=*&orderByFields=id&f=json"
[ "$(curl -s "$server_a_base$page")" = "$(curl -s "$server_b_base$page")" ] || { echo "FAIL: the servers answer a page differently"; exit 1; }
echo "ok both servers answer 1000 features and the same page ($SECONDS s)"

# Waits until the replica has replayed the primary's WAL up to where it is now.
wait_for_replay() {
    local target replayed
    target=$(sql "$primary_port" "SELECT pg_current_wal_lsn()")
    for _ in $(seq 1 300); do
        replayed=$(sql "$replica_port" "SELECT pg_last_wal_replay_lsn() >= '$target'::pg_lsn")
        [ "$replayed" = t ] && return 0
        sleep 0.1
    done
    echo "FAIL: the replica did not replay up to $target in 30 s"
    exit 1
}

# 2. A write on the primary: in B at once, in A after replay.
sql "$primary_port" "INSERT INTO places SELECT i, 'new ' || i, ST_SetSRID(ST_MakePoint(0, 0), 4326) FROM generate_series(1001, 1010) AS i" > /dev/null
[ "$(count "$server_b_base")" = 1010 ] || { echo "FAIL: server B does not see the write at once"; exit 1; }
wait_for_replay
[ "$(count "$server_a_base")" = 1010 ] || { echo "FAIL: server A does not see the write after replay"; exit 1; }
echo "ok a write is in server B's answers at once and in server A's after replay ($SECONDS s)"

# 3. Writes while both servers answer: no error, and every answer after the replay has them all.
load() {
    local end=$((SECONDS + 10)) n=0 failures=0
    while [ $SECONDS -lt $end ]; do
        code=$(status "$1")
        [ "$code" = 200 ] || failures=$((failures + 1))
        n=$((n + 1))
    done
    echo "$n $failures" > "$root/$2.load"
}
load "$server_a_base" a & load_a=$!
load "$server_b_base" b & load_b=$!
for i in $(seq 1011 1210); do
    sql "$primary_port" "INSERT INTO places VALUES ($i, 'burst $i', ST_SetSRID(ST_MakePoint(1, 1), 4326))" > /dev/null
done
sql "$primary_port" "DELETE FROM places WHERE id BETWEEN 1001 AND 1005" > /dev/null
wait "$load_a" "$load_b"
read -r requests_a failures_a < "$root/a.load"
read -r requests_b failures_b < "$root/b.load"
[ "$failures_a" = 0 ] && [ "$failures_b" = 0 ] || { echo "FAIL: answers other than 200 under load (A $failures_a, B $failures_b)"; exit 1; }
expected=$(sql "$primary_port" "SELECT count(*) FROM places")
[ "$(count "$server_b_base")" = "$expected" ] || { echo "FAIL: server B after the burst"; exit 1; }
wait_for_replay
[ "$(count "$server_a_base")" = "$expected" ] || { echo "FAIL: server A after the burst and replay"; exit 1; }
echo "ok $requests_a and $requests_b requests through A and B during 200 inserts and 5 deletes, all 200; both then count $expected ($SECONDS s)"

# 4. The replica stops: A answers 503 within its timeout, B goes on; the replica back, A too.
as_postgres_owner "$bin/pg_ctl" -D "$root/replica" -m immediate stop > /dev/null
started=$SECONDS
code=$(status "$server_a_base")
{ [ "$code" = 502 ] || [ "$code" = 503 ]; } && [ $((SECONDS - started)) -le 6 ] \
    || { echo "FAIL: server A answered $code in $((SECONDS - started)) s with its replica down"; exit 1; }
# The pool's broken connections answer 502 until none is left; then 503, with none to be made.
for _ in 1 2 3 4 5 6; do
    code=$(status "$server_a_base")
    [ "$code" = 503 ] && break
done
[ "$code" = 503 ] || { echo "FAIL: server A answered $code, not 503, with no connection to make"; exit 1; }
[ "$(count "$server_b_base")" = "$expected" ] || { echo "FAIL: server B with the replica down"; exit 1; }
echo "ok with the replica down, server A answers 502 or 503 within its query timeout and server B answers ($SECONDS s)"
start_cluster replica "$replica_port"
for _ in $(seq 1 100); do
    [ "$(status "$server_a_base")" = 200 ] && break
    sleep 0.3
done
wait_for_replay
[ "$(count "$server_a_base")" = "$expected" ] || { echo "FAIL: server A once its replica is back"; exit 1; }
echo "ok with the replica back, server A answers again, with the primary's rows ($SECONDS s)"

for pid in "${pids[@]}"; do stop_serving "$pid" "geosieve"; done
pids=()
echo "test-replication: all checks passed"
