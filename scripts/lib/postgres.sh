# Shared by scripts/test and scripts/run: a throw-away PostgreSQL cluster for Herald's stores.
# Source it after scripts/lib/broker.sh (it uses log, as_root, tcp_answers, install_packages).

# ensure_postgres URL [DIR]: makes sure a PostgreSQL server answers at URL's host and port
# (postgres://user:password@host:port/database), starting a local cluster if none does: its
# data in DIR (kept), or in a temporary folder removed when it stops. The cluster runs as
# the user postgres, listens on 127.0.0.1 only, and has URL's user (with its password) and
# database. Sets started_postgres=1 when it started one (stop it with stop_postgres).
started_postgres=0
postgres_dir=""
throwaway_postgres=0
postgres_bin=""
ensure_postgres() {
    local url="$1" dir="${2:-}" rest credentials user password hostport host port database
    rest="${url#postgres://}"; rest="${rest#postgresql://}"
    credentials="${rest%%@*}"; user="${credentials%%:*}"; password="${credentials#*:}"
    hostport="${rest#*@}"; hostport="${hostport%%/*}"; host="${hostport%%:*}"; port="${hostport##*:}"
    [ "$port" = "$host" ] && port=5432
    database="${rest#*/}"; database="${database%%\?*}"
    if tcp_answers "$host" "$port"; then
        log "using the PostgreSQL server at $host:$port"
        return
    fi
    if [ "$host" != 127.0.0.1 ] && [ "$host" != localhost ]; then
        echo "the PostgreSQL server at $host:$port does not answer" >&2; exit 1
    fi
    install_packages postgresql
    postgres_bin="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)"
    if [ -n "$dir" ]; then
        postgres_dir="$dir"
    else
        postgres_dir="$(mktemp -d /tmp/herald-postgres.XXXXXX)"
        throwaway_postgres=1
    fi
    mkdir -p "$postgres_dir"
    as_root chown postgres:postgres "$postgres_dir"
    as_root chmod 700 "$postgres_dir"
    if [ ! -f "$postgres_dir/PG_VERSION" ]; then
        log "creating a PostgreSQL cluster in $postgres_dir"
        as_root setpriv --reuid=postgres --regid=postgres --init-groups \
            "$postgres_bin/initdb" -D "$postgres_dir" -U postgres --auth-local=trust --auth-host=scram-sha-256 >/dev/null
    fi
    # A throw-away cluster's data dies with it: it need not survive a power cut.
    local durability="" tls=""
    [ "$throwaway_postgres" -eq 1 ] && durability="-c fsync=off -c synchronous_commit=off"
    # With HERALD_TEST_TLS_DIR (scripts/lib/tls.sh), TLS is on too, with the certificate for
    # localhost; clients choose (sslmode), as pg_hba.conf's host lines take both.
    if [ -n "${HERALD_TEST_TLS_DIR:-}" ]; then
        install_tls_files "$HERALD_TEST_TLS_DIR" "$postgres_dir/tls" postgres
        tls="-c ssl=on -c ssl_cert_file=$postgres_dir/tls/server.pem -c ssl_key_file=$postgres_dir/tls/server.key -c ssl_ca_file=$postgres_dir/tls/ca.pem"
    fi
    log "starting PostgreSQL on 127.0.0.1:$port"
    as_root setpriv --reuid=postgres --regid=postgres --init-groups \
        "$postgres_bin/pg_ctl" -D "$postgres_dir" -l "$postgres_dir/server.log" -w -t 60 \
        -o "-c listen_addresses=127.0.0.1 -p $port -k $postgres_dir -c max_connections=300 $durability $tls" start >/dev/null
    started_postgres=1
    local psql=("$postgres_bin/psql" -h "$postgres_dir" -p "$port" -U postgres -v ON_ERROR_STOP=1 -q)
    as_root setpriv --reuid=postgres --regid=postgres --init-groups "${psql[@]}" -d postgres <<SQL
DO \$\$ BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '$user') THEN CREATE ROLE "$user" LOGIN CREATEDB PASSWORD '$password'; END IF;
END \$\$;
SQL
    if ! as_root setpriv --reuid=postgres --regid=postgres --init-groups "${psql[@]}" -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = '$database'" | grep -q 1; then
        as_root setpriv --reuid=postgres --regid=postgres --init-groups "${psql[@]}" -d postgres -c "CREATE DATABASE \"$database\" OWNER \"$user\""
    fi
    log "PostgreSQL is up"
}

stop_postgres() {
    [ "$started_postgres" -eq 1 ] || return 0
    as_root setpriv --reuid=postgres --regid=postgres --init-groups "$postgres_bin/pg_ctl" -D "$postgres_dir" -m fast -w stop >/dev/null 2>&1 || true
    if [ "$throwaway_postgres" -eq 1 ] && [ -n "$postgres_dir" ]; then as_root rm -rf "$postgres_dir"; fi
    started_postgres=0
}
