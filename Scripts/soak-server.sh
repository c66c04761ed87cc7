#!/usr/bin/env bash
# Connection soak of `geosieve serve`: slow clients, idle keep-alive connections, huge declared
# bodies, huge URLs and headers, requests without Host or with two; then the server must still
# answer a normal query within 100 ms, hold no more connections than its bound, and close the
# slow and idle connections after its timeouts.
#
# Usage: Scripts/soak-server.sh PATH_TO_GEOSIEVE
#
# Needs bash and python3 (standard library only). Everything is bounded in count and time (about
# half a minute) and stays on the loopback address: the server listens on 127.0.0.1 with a port
# it picks, 2 s timeouts and a bound of 32 connections; it is stopped with SIGTERM at the end
# (and killed if the script fails).
set -euo pipefail

. "$(dirname "$0")/serve-lib.sh"
geosieve_argument "$@"
if ! command -v python3 > /dev/null; then
    echo "error: python3 not found" >&2
    exit 1
fi
cd "$(dirname "$0")/.."
started_at=$SECONDS

header_timeout=2
idle_timeout=2
max_connections=32
max_body_bytes=1048576

serve_work geosieve-soak 40

"$geosieve" serve Tests/Fixtures/naturalearth_cities.geojson:cities --port 0 --host 127.0.0.1 \
    --header-timeout "$header_timeout" --idle-timeout "$idle_timeout" --max-connections "$max_connections" \
    --max-body-bytes "$max_body_bytes" --log-level warning > "$work/server.out" 2> "$work/server.log" &
server_pid=$!
wait_for_serving "$work/server.out" "$server_pid" soak
echo "server: $base (header timeout ${header_timeout} s, idle timeout ${idle_timeout} s, at most $max_connections connections)"

python3 - "$port" "$server_pid" "$header_timeout" "$idle_timeout" "$max_connections" "$max_body_bytes" <<'EOF'
import os
import select
import shutil
import socket
import subprocess
import sys
import time

PORT = int(sys.argv[1])
SERVER_PID = int(sys.argv[2])
HEADER_TIMEOUT = float(sys.argv[3])
IDLE_TIMEOUT = float(sys.argv[4])
BOUND = int(sys.argv[5])
MAX_BODY = int(sys.argv[6])
HOST = "127.0.0.1"
# Closing after a timeout may take this much longer (timers, a loaded machine).
SLACK = 1.5
# A normal query must be answered within this.
ANSWER_LIMIT = 0.100

failures = []


def check(ok, message):
    print(("PASS " if ok else "FAIL ") + message, flush=True)
    if not ok:
        failures.append(message)


def connect():
    sock = socket.create_connection((HOST, PORT), timeout=5)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


def parse(data):
    """(status, headers, complete) of the first answer in data; status None until its head came."""
    end = data.find(b"\r\n\r\n")
    if end < 0:
        return None, {}, False
    lines = data[:end].decode("latin-1").split("\r\n")
    try:
        status = int(lines[0].split(" ")[1])
    except (IndexError, ValueError):
        return None, {}, False
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    length = int(headers.get("content-length", "0") or 0)
    return status, headers, len(data) >= end + 4 + length


def read_answer(sock, timeout):
    """(status, headers, closed) of the next answer, waiting at most timeout seconds."""
    deadline = time.monotonic() + timeout
    data = b""
    while True:
        status, headers, complete = parse(data)
        if complete:
            return status, headers, False
        left = deadline - time.monotonic()
        if left <= 0:
            return status, headers, False
        ready, _, _ = select.select([sock], [], [], left)
        if not ready:
            continue
        try:
            chunk = sock.recv(65536)
        except (ConnectionResetError, OSError):
            chunk = b""
        if not chunk:
            status, headers, _ = parse(data)
            return status, headers, True
        data += chunk


def closed_within(sock, timeout):
    """Whether the server closes sock within timeout seconds (what it sends meanwhile is dropped)."""
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        ready, _, _ = select.select([sock], [], [], left)
        if not ready:
            continue
        try:
            if not sock.recv(65536):
                return True
        except (ConnectionResetError, OSError):
            return True


def probe():
    """Seconds a normal query takes on a new connection, None when it fails."""
    started = time.monotonic()
    try:
        sock = connect()
        sock.sendall(b"GET /ogc/collections/cities/items?limit=1 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        status, _, _ = read_answer(sock, 5)
        sock.close()
    except OSError:
        return None
    return time.monotonic() - started if status == 200 else None


def probes(count, what):
    """Runs count probes; checks each is answered, most within the limit, none beyond a second."""
    times = [probe() for _ in range(count)]
    answered = sorted(t for t in times if t is not None)
    check(len(answered) == count, f"{what}: {len(answered)} of {count} normal queries answered")
    if answered:
        fast = sum(1 for t in answered if t <= ANSWER_LIMIT)
        median = answered[len(answered) // 2]
        print(f"summary: {what}: normal query median {median * 1000:.1f} ms, slowest {answered[-1] * 1000:.1f} ms, "
              f"{fast} of {len(answered)} within {ANSWER_LIMIT * 1000:.0f} ms", flush=True)
        check(fast >= 0.9 * count and answered[-1] < 1.0,
              f"{what}: normal queries answered within {ANSWER_LIMIT * 1000:.0f} ms (90 % of them; all within 1 s)")


def server_connections():
    """Connections the server holds: established TCP connections whose local end is its port,
    less those still in its listening socket's accept queue (the kernel's, not yet accepted)."""
    if shutil.which("ss"):
        established = subprocess.run(["ss", "-Htn", "state", "established", f"( sport = :{PORT} )"],
                                     capture_output=True, text=True, check=False)
        listening = subprocess.run(["ss", "-Hltn", f"( sport = :{PORT} )"], capture_output=True, text=True, check=False)
        if established.returncode == 0 and listening.returncode == 0:
            queued = sum(int(line.split()[1]) for line in listening.stdout.splitlines() if len(line.split()) > 1)
            return sum(1 for line in established.stdout.splitlines() if line.strip()) - queued
    count = 0
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table) as f:
                next(f)
                for line in f:
                    fields = line.split()
                    if int(fields[1].rsplit(":", 1)[1], 16) != PORT:
                        continue
                    if fields[3] == "01":
                        count += 1
                    elif fields[3] == "0A":  # listening: its receive queue is the accept queue
                        count -= int(fields[4].split(":")[1], 16)
        except OSError:
            pass
    return count


def alive():
    try:
        os.kill(SERVER_PID, 0)
        return True
    except OSError:
        return False


class Slow:
    """A client sending its head one byte at a time, never finishing it."""

    def __init__(self):
        self.sock = connect()
        self.opened = time.monotonic()
        self.closed_at = None
        self.sock.sendall(b"GET /ogc HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")

    def tick(self):
        if self.closed_at is not None:
            return
        try:
            ready, _, _ = select.select([self.sock], [], [], 0)
            if ready and not self.sock.recv(65536):
                raise ConnectionResetError
            self.sock.send(b"a")
        except OSError:
            self.closed_at = time.monotonic()
            self.sock.close()


class Idle:
    """A keep-alive client that sent one request, read its answer and sends nothing more."""

    def __init__(self):
        self.sock = connect()
        self.sock.sendall(b"GET /ogc/conformance HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        self.status, _, closed = read_answer(self.sock, 5)
        self.answered = time.monotonic()
        self.closed_at = self.answered if closed else None

    def tick(self):
        if self.closed_at is not None:
            return
        ready, _, _ = select.select([self.sock], [], [], 0)
        if not ready:
            return
        try:
            if self.sock.recv(65536):
                return
        except OSError:
            pass
        self.closed_at = time.monotonic()
        self.sock.close()


def trickle(clients, seconds, step=0.25, sample=None):
    """Every step seconds for seconds: a byte to each open slow client, a look at each idle one,
    and sample()."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        for client in clients:
            client.tick()
        time.sleep(step)
        if sample:
            sample()


t0 = time.monotonic()
probes(10, "quiet server")

# --- Slow heads and idle keep-alive connections, under the bound: closed after the timeouts ----

slow = [Slow() for _ in range(8)]
idle = [Idle() for _ in range(8)]
check(all(c.status == 200 and c.closed_at is None for c in idle), "keep-alive requests are answered and their connections kept")
trickle(slow + idle, 0.5)
probes(10, "with 8 slow heads and 8 idle connections")
trickle(slow + idle, max(HEADER_TIMEOUT, IDLE_TIMEOUT) + SLACK)
lifetimes = [c.closed_at - c.opened for c in slow if c.closed_at is not None]
check(len(lifetimes) == len(slow), f"slow heads closed by the server: {len(lifetimes)} of {len(slow)}")
if lifetimes:
    print(f"summary: slow heads closed after {min(lifetimes):.2f} to {max(lifetimes):.2f} s "
          f"(header timeout {HEADER_TIMEOUT:g} s)", flush=True)
    check(min(lifetimes) >= HEADER_TIMEOUT * 0.8 and max(lifetimes) <= HEADER_TIMEOUT + SLACK,
          "slow heads are closed at the header timeout")
idle_lifetimes = [c.closed_at - c.answered for c in idle if c.closed_at is not None]
check(len(idle_lifetimes) == len(idle), f"idle keep-alive connections closed by the server: {len(idle_lifetimes)} of {len(idle)}")
if idle_lifetimes:
    print(f"summary: idle connections closed {min(idle_lifetimes):.2f} to {max(idle_lifetimes):.2f} s after their answer "
          f"(idle timeout {IDLE_TIMEOUT:g} s)", flush=True)
    check(min(idle_lifetimes) >= IDLE_TIMEOUT * 0.8 and max(idle_lifetimes) <= IDLE_TIMEOUT + SLACK,
          "idle connections are closed at the idle timeout")
for client in slow + idle:
    client.sock.close()

# --- More slow heads than the bound: the oldest make room, the count stays bounded -----------

flood = []
for _ in range(3 * BOUND):
    try:
        flood.append(Slow())
    except OSError as error:
        check(False, f"connecting slow client {len(flood) + 1}: {error}")
        break
# Right after the burst, connections the server has accepted but not yet set up (and so not yet
# made room for) may be counted too: reported, not checked.
burst = server_connections()
counts = []
trickle(flood, 0.5, sample=lambda: counts.append(server_connections()))
probes(20, f"with {len(flood)} slow heads ({BOUND} connections at most)")
trickle(flood, 0.5, sample=lambda: counts.append(server_connections()))
print(f"summary: server connections during the flood: {burst} right after the burst of {len(flood)}, "
      f"then at most {max(counts)} (bound {BOUND}), "
      f"{sum(1 for c in flood if c.closed_at is not None)} of {len(flood)} slow heads closed to make room", flush=True)
check(max(counts) <= BOUND, f"the server holds at most {BOUND} connections (saw {max(counts)})")
for client in flood:
    client.sock.close()

# --- Requests refused from their head, each closing its connection ---------------------------

def refused(name, request, statuses, limit=1.0):
    started = time.monotonic()
    sock = connect()
    try:
        try:
            sock.sendall(request)
        except OSError:
            pass  # closed while the rest was sent: the answer is still there to read
        status, headers, closed = read_answer(sock, 5)
        seconds = time.monotonic() - started
        closed = closed or closed_within(sock, 5)
    finally:
        sock.close()
    check(status in statuses and seconds <= limit,
          f"{name}: HTTP {status} in {seconds * 1000:.0f} ms (expected {' or '.join(map(str, statuses))} within {limit:.0f} s)")
    check(closed and headers.get("connection", "").lower() == "close", f"{name}: the connection is closed")


query = b"/arcgis/rest/services/cities/FeatureServer/0/query"
for length in (b"9223372036854775807", str(MAX_BODY + 1).encode()):
    for _ in range(5):
        refused(f"Content-Length {length.decode()}",
                b"POST " + query + b" HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                b"Content-Length: " + length + b"\r\n\r\nwhere=1", (413,))
refused("a URL of 10 MB", b"GET /ogc?x=" + b"a" * (10 << 20) + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", (414,), limit=3)
refused("a header of 16 MB", b"GET /ogc HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + b"a" * (16 << 20) + b"\r\n\r\n", (431,), limit=3)
refused("HTTP/1.1 without Host", b"GET /ogc HTTP/1.1\r\n\r\n", (400,))
refused("HTTP/1.1 with two Host headers", b"GET /ogc HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: example.org\r\n\r\n", (400,))
sock = connect()
sock.sendall(b"GET /ogc HTTP/1.0\r\n\r\n")
status, _, _ = read_answer(sock, 5)
sock.close()
check(status == 200, f"HTTP/1.0 without Host is answered (HTTP {status})")

# --- Afterwards: every connection gone, the server as fast as before ------------------------

time.sleep(max(HEADER_TIMEOUT, IDLE_TIMEOUT) + SLACK)
remaining = server_connections()
print(f"summary: server connections after the soak: {remaining}", flush=True)
check(remaining == 0, f"no connection left open after the timeouts ({remaining})")
probes(10, "after the soak")
check(alive(), "the server is still running")
print(f"soak: {len(failures)} failures in {time.monotonic() - t0:.1f} s", flush=True)
sys.exit(1 if failures else 0)
EOF

# SIGTERM: exit status 0.
stop_serving "$server_pid" soak
server_pid=
echo "soak test: passed in $((SECONDS - started_at)) s"
