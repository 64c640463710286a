#!/bin/sh
# The stand-in's entry point: on an empty data folder, makes the cluster with POSTGRES_USER
# (default postgres) as its superuser, the password from POSTGRES_PASSWORD_FILE or
# POSTGRES_PASSWORD, the database POSTGRES_DB, and connections from the network with a
# password; then runs the server as the postgres user, as the official image does.
set -e
user="${POSTGRES_USER:-postgres}"
database="${POSTGRES_DB:-$user}"
if [ -n "$POSTGRES_PASSWORD_FILE" ]; then password="$(cat "$POSTGRES_PASSWORD_FILE")"; else password="$POSTGRES_PASSWORD"; fi
chown -R postgres:postgres "$PGDATA" /run/postgresql
if [ ! -s "$PGDATA/PG_VERSION" ]; then
    printf '%s' "$password" > /tmp/pw && chown postgres /tmp/pw
    su postgres -s /bin/sh -c "initdb -D '$PGDATA' -U '$user' --pwfile=/tmp/pw --auth-local=trust --auth-host=scram-sha-256 >/dev/null"
    rm -f /tmp/pw
    echo "listen_addresses = '*'" >> "$PGDATA/postgresql.conf"
    echo "host all all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
    if [ "$database" != postgres ]; then
        su postgres -s /bin/sh -c "pg_ctl -D '$PGDATA' -o '-c listen_addresses=' -w start >/dev/null && psql -U '$user' -d postgres -qc 'CREATE DATABASE \"$database\"' && pg_ctl -D '$PGDATA' -w stop >/dev/null"
    fi
fi
if [ "$1" = postgres ]; then
    shift
    exec su postgres -s /bin/sh -c "exec postgres -D '$PGDATA' $*"
fi
exec "$@"
