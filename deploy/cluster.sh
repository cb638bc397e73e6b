#!/usr/bin/env bash
# A Tabula cluster on one machine: three application hosts and a database host, each a network
# namespace on a bridge, and HAProxy in front (in the machine's own namespace).
#
#   deploy/cluster.sh up               make the hosts, start PostgreSQL, the services, HAProxy
#   deploy/cluster.sh down             stop everything and remove the hosts
#   deploy/cluster.sh status           each host's /ready and HAProxy's view of it
#   deploy/cluster.sh kill HOST        SIGKILL every process of an app host, its link down
#   deploy/cluster.sh start HOST       its link up, its service started again
#   deploy/cluster.sh cut HOST         drop an app host's packets to and from the database hosts
#   deploy/cluster.sh heal HOST        let them through again
#   deploy/cluster.sh clock HOST SECS  step an app host's clock SECS from the machine's (0: back)
#   deploy/cluster.sh env              the cluster's addresses as shell variables
#
# Needs root, iproute2, iptables, HAProxy and PostgreSQL (Debian's packages). Settings, from the
# environment: TABULA_CLUSTER_NAME (prefix of the namespaces and links, at most 8 characters;
# "tabula"), TABULA_CLUSTER_NET (the first three numbers of its /24; "10.49.0"),
# TABULA_CLUSTER_DIR (its state: data, logs, pid files; /run/<name>-cluster),
# TABULA_CLUSTER_PORT (HAProxy's port on 127.0.0.1 and the bridge; 8049), TABULA_CLUSTER_APPS
# (application hosts; 3), TABULA_CLUSTER_WORKERS (processes per host; 2). Any other TABULA_*
# variable set when `up` or `start` runs reaches the services.
#
# The database hosts are "db" (.10) and, when deploy/postgres-standby.sh exists, "db2" (.20):
# `up` makes both namespaces, starts the primary on db, then runs
# `deploy/postgres-standby.sh up` (and `down` runs `deploy/postgres-standby.sh down` first)
# with the variables `env` prints exported. Application host N is appN at .1N; HAProxy
# reaches them from the bridge's address, .1.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
NAME=${TABULA_CLUSTER_NAME:-tabula}
NET=${TABULA_CLUSTER_NET:-10.49.0}
DIR=${TABULA_CLUSTER_DIR:-/run/$NAME-cluster}
LB_PORT=${TABULA_CLUSTER_PORT:-8049}
APPS=${TABULA_CLUSTER_APPS:-3}
WORKERS=${TABULA_CLUSTER_WORKERS:-2}
PYTHON=${TABULA_CLUSTER_PYTHON:-$ROOT/.venv/bin/python}
PG_BIN=${TABULA_CLUSTER_PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)}
APP_PORT=8000
DB_PORT=5432
BRIDGE="$NAME-br"
STANDBY="$ROOT/deploy/postgres-standby.sh"

address() { # the address of a host: db, db2, app1, app2, ...
    case "$1" in
        db) echo "$NET.10" ;;
        db2) echo "$NET.20" ;;
        app[0-9]*) echo "$NET.1${1#app}" ;;
        *) echo "no host $1 (db, db2, app1..app$APPS)" >&2; return 1 ;;
    esac
}

apps() { seq -f "app%g" 1 "$APPS"; }

database_url() { # every database host, the writable one chosen (a standby may take over)
    local hosts="$(address db):$DB_PORT"
    if [ -x "$STANDBY" ]; then hosts="$hosts,$(address db2):$DB_PORT"; fi
    echo "postgresql://tabula:tabula@$hosts/tabula?target_session_attrs=read-write&connect_timeout=2&tcp_user_timeout=500&keepalives_idle=1&keepalives_interval=1&keepalives_count=2"
}

print_env() {
    echo "TABULA_CLUSTER_NAME=$NAME"
    echo "TABULA_CLUSTER_NET=$NET"
    echo "TABULA_CLUSTER_DIR=$DIR"
    echo "TABULA_CLUSTER_URL=http://127.0.0.1:$LB_PORT"
    echo "TABULA_CLUSTER_HAPROXY_SOCKET=$DIR/haproxy.sock"
    echo "TABULA_CLUSTER_DATABASE_URL='$(database_url)'"
    echo "TABULA_CLUSTER_PG_BIN=$PG_BIN"
    echo "TABULA_CLUSTER_DB_NS=$NAME-db"
    echo "TABULA_CLUSTER_DB_ADDR=$(address db)"
    echo "TABULA_CLUSTER_DB2_NS=$NAME-db2"
    echo "TABULA_CLUSTER_DB2_ADDR=$(address db2)"
    echo "TABULA_CLUSTER_APPS='$(apps | tr '\n' ' ' | sed 's/ $//')'"
    for app in $(apps); do echo "TABULA_CLUSTER_${app^^}=http://$(address "$app"):$APP_PORT"; done
}

in_ns() { local host=$1; shift; ip netns exec "$NAME-$host" "$@"; }

make_host() { # a namespace joined to the bridge by a veth pair: eth0 inside, $NAME-$host outside
    local host=$1 addr
    addr=$(address "$host")
    ip netns add "$NAME-$host"
    ip link add "$NAME-$host" type veth peer name eth0 netns "$NAME-$host"
    ip link set "$NAME-$host" master "$BRIDGE" up
    in_ns "$host" ip link set lo up
    in_ns "$host" ip addr add "$addr/24" dev eth0
    in_ns "$host" ip link set eth0 up
    in_ns "$host" ip route add default via "$NET.1"
}

start_database() {
    local data="$DIR/db/data"
    mkdir -p "$DIR/db"
    chown postgres:postgres "$DIR/db"
    runuser -u postgres -- "$PG_BIN/initdb" -D "$data" -A trust -U postgres >"$DIR/db/initdb.log"
    cat >>"$data/postgresql.conf" <<CONF
listen_addresses = '$(address db)'
port = $DB_PORT
unix_socket_directories = '$DIR/db'
max_connections = 200
wal_level = replica
max_wal_senders = 10
CONF
    echo "host all all $NET.0/24 trust" >>"$data/pg_hba.conf"
    echo "host replication all $NET.0/24 trust" >>"$data/pg_hba.conf"
    in_ns db runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$data" -l "$DIR/db/postgres.log" -w start >/dev/null
    in_ns db runuser -u postgres -- "$PG_BIN/psql" -q -h "$DIR/db" -p "$DB_PORT" -U postgres \
        -c "CREATE ROLE tabula LOGIN SUPERUSER PASSWORD 'tabula'" -c "CREATE DATABASE tabula OWNER tabula"
}

start_app() { # python -m service on the host, every process of it in its namespace
    local host=$1 addr
    addr=$(address "$host")
    mkdir -p "$DIR/$host"
    [ -f "$DIR/$host/clock-offset" ] || echo 0 >"$DIR/$host/clock-offset"
    in_ns "$host" env -C "$ROOT" \
        TABULA_HOST="$addr" TABULA_PORT="$APP_PORT" TABULA_WORKERS="$WORKERS" \
        TABULA_DATABASE_URL="${TABULA_DATABASE_URL:-$(database_url)}" \
        TABULA_STORE_TIMEOUT="${TABULA_STORE_TIMEOUT:-0.8}" \
        TABULA_TRUSTED_PROXIES="${TABULA_TRUSTED_PROXIES:-$NET.1}" \
        TABULA_CURSOR_KEY="$(cat "$DIR/cursor-key")" \
        TABULA_CLOCK_OFFSET_FILE="$DIR/$host/clock-offset" \
        TABULA_LOG_FORMAT="${TABULA_LOG_FORMAT:-json}" \
        setsid "$PYTHON" -m service </dev/null >>"$DIR/$host/service.log" 2>&1 &
    echo $! >"$DIR/$host/pid"
}

wait_ready() { # until the host's /ready says 200 (90 s at most)
    local host=$1 url
    url="http://$(address "$host"):$APP_PORT/ready"
    for _ in $(seq 1 180); do
        if curl -fsS -o /dev/null --max-time 2 "$url" 2>/dev/null; then return 0; fi
        if ! kill -0 "$(cat "$DIR/$host/pid")" 2>/dev/null; then break; fi  # it ended
        sleep 0.5
    done
    echo "$host did not become ready; its log: $DIR/$host/service.log" >&2
    tail -n 20 "$DIR/$host/service.log" >&2
    return 1
}

start_haproxy() {
    local servers="" app
    for app in $(apps); do
        servers="$servers    server $app $(address "$app"):$APP_PORT\n"
    done
    # The reference configuration with this cluster's servers in place of its example ones.
    awk -v servers="$servers" '
        /^ *server app[0-9]+ / { if (!done) { printf "%s", servers; done = 1 } ; next }
        { print }' "$ROOT/deploy/haproxy.cfg" >"$DIR/haproxy.cfg"
    TABULA_LB_BIND="*:$LB_PORT" TABULA_LB_STATS="$DIR/haproxy.sock" \
        haproxy -f "$DIR/haproxy.cfg" -D -p "$DIR/haproxy.pid"
}

up() {
    if ip netns list | grep -qw "$NAME-db"; then
        echo "the cluster $NAME is up already (deploy/cluster.sh down first)" >&2
        exit 1
    fi
    for tool in ip iptables haproxy curl; do
        command -v "$tool" >/dev/null || { echo "$tool is missing" >&2; exit 1; }
    done
    mkdir -p "$DIR"
    head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$DIR/cursor-key"
    ip link add "$BRIDGE" type bridge
    ip addr add "$NET.1/24" dev "$BRIDGE"
    ip link set "$BRIDGE" up
    make_host db
    make_host db2
    for app in $(apps); do make_host "$app"; done
    start_database
    if [ -x "$STANDBY" ]; then (export_env && "$STANDBY" up); fi
    for app in $(apps); do start_app "$app"; done
    for app in $(apps); do wait_ready "$app"; done
    start_haproxy
    echo "cluster $NAME up: http://127.0.0.1:$LB_PORT (hosts $(apps | tr '\n' ' ')over $(address db))"
}

export_env() { eval "$(print_env | sed 's/^/export /')"; }

stop_host() { # every process in the host's namespace, SIGKILL
    local host=$1 pid
    for pid in $(ip netns pids "$NAME-$host" 2>/dev/null); do kill -9 "$pid" 2>/dev/null || true; done
}

down() {
    if [ -f "$DIR/haproxy.pid" ]; then kill "$(cat "$DIR/haproxy.pid")" 2>/dev/null || true; fi
    if [ -x "$STANDBY" ]; then (export_env && "$STANDBY" down) || true; fi
    local host
    for host in $(apps) db db2; do
        if ip netns list | grep -qw "$NAME-$host"; then
            stop_host "$host"
            ip netns del "$NAME-$host"
        fi
        ip link del "$NAME-$host" 2>/dev/null || true
    done
    ip link del "$BRIDGE" 2>/dev/null || true
    rm -rf "$DIR"
    echo "cluster $NAME down"
}

status() {
    local app
    if ! ip netns list | grep -qw "$NAME-db"; then echo "the cluster $NAME is not up"; return 1; fi
    for app in $(apps); do
        printf '%s %s ready: %s\n' "$app" "$(address "$app")" \
            "$(curl -sS --max-time 2 "http://$(address "$app"):$APP_PORT/ready" 2>&1 || true)"
    done
    echo "show servers state tabula_hosts" | haproxy_admin |
        awk 'NF > 5 && $1 !~ /^#/ { print "haproxy has " $4 " " ($6 == 2 ? "UP" : "DOWN") }'
    if [ -x "$STANDBY" ]; then (export_env && "$STANDBY" status) || true; fi
}

haproxy_admin() { # a command to HAProxy's admin socket (in Python: no socat needed)
    "$PYTHON" -c 'import socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.sendall(sys.stdin.buffer.read())
s.shutdown(socket.SHUT_WR); sys.stdout.write(s.makefile().read())' "$DIR/haproxy.sock"
}

cut() { # drop what goes between the host and the database hosts (both ways)
    local host=$1 db
    for db in db db2; do
        in_ns "$host" iptables -I OUTPUT -d "$(address "$db")" -j DROP
        in_ns "$host" iptables -I INPUT -s "$(address "$db")" -j DROP
    done
}

heal() {
    local host=$1 db
    for db in db db2; do
        while in_ns "$host" iptables -D OUTPUT -d "$(address "$db")" -j DROP 2>/dev/null; do :; done
        while in_ns "$host" iptables -D INPUT -s "$(address "$db")" -j DROP 2>/dev/null; do :; done
    done
}

command=${1:-}
case "$command" in
    up) up ;;
    down) down ;;
    status) status ;;
    env) print_env ;;
    kill) address "$2" >/dev/null; ip link set "$NAME-$2" down; stop_host "$2" ;;
    start) ip link set "$NAME-$2" up; start_app "$2"; wait_ready "$2" ;;
    cut) address "$2" >/dev/null; cut "$2" ;;
    heal) address "$2" >/dev/null; heal "$2" ;;
    clock) address "$2" >/dev/null; echo "${3:?seconds}" >"$DIR/$2/clock-offset" ;;
    *) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;;
esac
