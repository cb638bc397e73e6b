#!/usr/bin/env bash
# A PostgreSQL primary with a synchronous streaming standby: no commit is acknowledged before
# the standby has it on disk (synchronous_standby_names names the standby, synchronous_commit =
# on), so the standby, promoted, holds every acknowledged write.
#
#   deploy/postgres-standby.sh up             make the standby of the primary, streaming, synchronous
#   deploy/postgres-standby.sh down           stop what `up` started (standalone: both servers, data removed)
#   deploy/postgres-standby.sh promote        make the standby the primary (it takes writes at once)
#   deploy/postgres-standby.sh kill-primary   SIGKILL the primary's processes (a crash for good)
#   deploy/postgres-standby.sh status         each server's role, and the primary's view of its standby
#   deploy/postgres-standby.sh url            the service's database URL: both hosts, the writable one chosen
#
# Two ways to run, by the environment:
#
# - In the cluster (deploy/cluster.sh `up` runs it with TABULA_CLUSTER_* exported): the primary
#   already runs on the host "db" (namespace TABULA_CLUSTER_DB_NS, TABULA_CLUSTER_DB_ADDR, port
#   5432, data in TABULA_CLUSTER_DIR/db/data); the standby runs on "db2" (TABULA_CLUSTER_DB2_NS,
#   TABULA_CLUSTER_DB2_ADDR, port 5432, data in TABULA_CLUSTER_DIR/db2/data).
# - Standalone (no TABULA_CLUSTER_DIR): `up` makes both servers on loopback, the primary on
#   TABULA_PG_PRIMARY_PORT (5441), the standby on TABULA_PG_STANDBY_PORT (5442), their data,
#   sockets and logs in TABULA_PG_DIR (/run/tabula-pg), a role and database "tabula"
#   (password "tabula").
#
# PostgreSQL's programs come from TABULA_CLUSTER_PG_BIN (the newest installed version's by
# default) and run as the postgres user. Needs root.
set -euo pipefail

PG_BIN=${TABULA_CLUSTER_PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)}
STANDBY_NAME=tabula_standby # the standby's application_name, and its replication slot

if [ -n "${TABULA_CLUSTER_DIR:-}" ]; then
    DIR=$TABULA_CLUSTER_DIR
    PRIMARY_DIR=$DIR/db STANDBY_DIR=$DIR/db2
    PRIMARY_NS=${TABULA_CLUSTER_DB_NS:?} STANDBY_NS=${TABULA_CLUSTER_DB2_NS:?}
    PRIMARY_ADDR=${TABULA_CLUSTER_DB_ADDR:?} STANDBY_ADDR=${TABULA_CLUSTER_DB2_ADDR:?}
    PRIMARY_PORT=5432 STANDBY_PORT=5432
    STANDALONE=
else
    DIR=${TABULA_PG_DIR:-/run/tabula-pg}
    PRIMARY_DIR=$DIR/primary STANDBY_DIR=$DIR/standby
    PRIMARY_NS= STANDBY_NS=
    PRIMARY_ADDR=127.0.0.1 STANDBY_ADDR=127.0.0.1
    PRIMARY_PORT=${TABULA_PG_PRIMARY_PORT:-5441} STANDBY_PORT=${TABULA_PG_STANDBY_PORT:-5442}
    STANDALONE=1
fi

as_postgres() { # a command as the postgres user, in a namespace when one is given ("" for none)
    local ns=$1; shift
    if [ -n "$ns" ]; then
        ip netns exec "$ns" runuser -u postgres -- "$@"
    else
        runuser -u postgres -- "$@"
    fi
}

sql() { # sql DIR PORT STATEMENT: one statement through the server's socket, the answer unadorned
    runuser -u postgres -- "$PG_BIN/psql" -X -q -At -h "$1" -p "$2" -U postgres -d postgres -c "$3"
}

make_primary() { # standalone only: a primary on loopback, with the role and database the service uses
    mkdir -p "$PRIMARY_DIR"
    chown postgres:postgres "$DIR" "$PRIMARY_DIR"
    as_postgres "" "$PG_BIN/initdb" -D "$PRIMARY_DIR/data" -A trust -U postgres >"$PRIMARY_DIR/initdb.log"
    cat >>"$PRIMARY_DIR/data/postgresql.conf" <<CONF
listen_addresses = '$PRIMARY_ADDR'
port = $PRIMARY_PORT
unix_socket_directories = '$PRIMARY_DIR'
max_connections = 200
wal_level = replica
max_wal_senders = 10
CONF
    as_postgres "" "$PG_BIN/pg_ctl" -D "$PRIMARY_DIR/data" -l "$PRIMARY_DIR/postgres.log" -w start >/dev/null
    sql "$PRIMARY_DIR" "$PRIMARY_PORT" "CREATE ROLE tabula LOGIN SUPERUSER PASSWORD 'tabula'"
    sql "$PRIMARY_DIR" "$PRIMARY_PORT" "CREATE DATABASE tabula OWNER tabula"
}

make_standby() { # a base backup of the primary, streaming from it through its own slot
    mkdir -p "$STANDBY_DIR"
    chown postgres:postgres "$STANDBY_DIR"
    sql "$PRIMARY_DIR" "$PRIMARY_PORT" \
        "SELECT pg_create_physical_replication_slot('$STANDBY_NAME') WHERE NOT EXISTS
         (SELECT FROM pg_replication_slots WHERE slot_name = '$STANDBY_NAME')" >/dev/null
    as_postgres "$STANDBY_NS" "$PG_BIN/pg_basebackup" -h "$PRIMARY_ADDR" -p "$PRIMARY_PORT" \
        -U postgres -D "$STANDBY_DIR/data" -c fast -X stream -S "$STANDBY_NAME" -R
    cat >>"$STANDBY_DIR/data/postgresql.conf" <<CONF
listen_addresses = '$STANDBY_ADDR'
port = $STANDBY_PORT
unix_socket_directories = '$STANDBY_DIR'
hot_standby = on
CONF
    # Last lines win: the standby names itself, and once promoted waits for no standby of its own.
    cat >>"$STANDBY_DIR/data/postgresql.auto.conf" <<CONF
primary_conninfo = 'host=$PRIMARY_ADDR port=$PRIMARY_PORT user=postgres application_name=$STANDBY_NAME'
primary_slot_name = '$STANDBY_NAME'
synchronous_standby_names = ''
CONF
    as_postgres "$STANDBY_NS" "$PG_BIN/pg_ctl" -D "$STANDBY_DIR/data" -l "$STANDBY_DIR/postgres.log" -w start >/dev/null
}

make_synchronous() { # the primary waits for the standby's flush before it acknowledges a commit
    sql "$PRIMARY_DIR" "$PRIMARY_PORT" "ALTER SYSTEM SET synchronous_standby_names = '$STANDBY_NAME'"
    sql "$PRIMARY_DIR" "$PRIMARY_PORT" "ALTER SYSTEM SET synchronous_commit = 'on'"
    sql "$PRIMARY_DIR" "$PRIMARY_PORT" "SELECT pg_reload_conf()" >/dev/null
    local state=""
    for _ in $(seq 1 120); do
        state=$(sql "$PRIMARY_DIR" "$PRIMARY_PORT" \
            "SELECT sync_state FROM pg_stat_replication WHERE application_name = '$STANDBY_NAME'")
        if [ "$state" = "sync" ]; then return 0; fi
        sleep 0.5
    done
    echo "the standby did not become synchronous (sync_state '$state'); its log: $STANDBY_DIR/postgres.log" >&2
    return 1
}

url() {
    echo "postgresql://tabula:tabula@$PRIMARY_ADDR:$PRIMARY_PORT,$STANDBY_ADDR:$STANDBY_PORT/tabula?target_session_attrs=read-write"
}

up() {
    if [ -f "$STANDBY_DIR/data/PG_VERSION" ]; then
        echo "a standby exists already in $STANDBY_DIR (deploy/postgres-standby.sh down first)" >&2
        exit 1
    fi
    mkdir -p "$DIR"
    if [ -n "$STANDALONE" ]; then make_primary; fi
    make_standby
    make_synchronous
    echo "standby $STANDBY_ADDR:$STANDBY_PORT streaming synchronously from $PRIMARY_ADDR:$PRIMARY_PORT"
    echo "database URL: $(url)"
}

stop_server() { # stop at once, if it runs
    local ns=$1 data=$2
    if [ -f "$data/postmaster.pid" ]; then
        as_postgres "$ns" "$PG_BIN/pg_ctl" -D "$data" -m immediate -w stop >/dev/null 2>&1 || true
    fi
}

down() {
    stop_server "$STANDBY_NS" "$STANDBY_DIR/data"
    if [ -n "$STANDALONE" ]; then
        stop_server "$PRIMARY_NS" "$PRIMARY_DIR/data"
        rm -rf "$DIR"
    else
        rm -rf "$STANDBY_DIR"
    fi
}

kill_primary() { # the postmaster and every process it started, SIGKILL: nothing is flushed or closed
    local pid
    pid=$(head -n 1 "$PRIMARY_DIR/data/postmaster.pid")
    # shellcheck disable=SC2046
    kill -KILL "$pid" $(ps -o pid= --ppid "$pid") 2>/dev/null || true
}

promote() { # the standby stops replaying and takes writes; it waits for no standby of its own
    as_postgres "$STANDBY_NS" "$PG_BIN/pg_ctl" -D "$STANDBY_DIR/data" -w promote >/dev/null
}

role() { # "primary", "standby" or "down" for a server
    local answer
    if ! answer=$(sql "$1" "$2" "SELECT pg_is_in_recovery()" 2>/dev/null); then
        echo down
    elif [ "$answer" = "t" ]; then
        echo standby
    else
        echo primary
    fi
}

status() {
    echo "primary $PRIMARY_ADDR:$PRIMARY_PORT: $(role "$PRIMARY_DIR" "$PRIMARY_PORT")"
    echo "standby $STANDBY_ADDR:$STANDBY_PORT: $(role "$STANDBY_DIR" "$STANDBY_PORT")"
    sql "$PRIMARY_DIR" "$PRIMARY_PORT" "SELECT application_name, state, sync_state, replay_lag
        FROM pg_stat_replication" 2>/dev/null || true
}

case "${1:-}" in
    up) up ;;
    down) down ;;
    promote) promote ;;
    kill-primary) kill_primary ;;
    status) status ;;
    url) url ;;
    *) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;;
esac
