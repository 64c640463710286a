# Shared by scripts/test, scripts/run and the benchmarks: root commands, Debian packages, a RabbitMQ node.
# Source it; it defines functions only (and sources scripts/lib/tls.sh beside it).

. "$(dirname "${BASH_SOURCE[0]}")/tls.sh"

log() { printf '\n==> %s\n' "$*"; }

as_root() {
    if [ "$(id -u)" -eq 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
        echo "need root (or sudo) to run: $*" >&2; exit 1; fi
}

# tcp_answers HOST PORT: whether something accepts TCP connections there.
tcp_answers() { (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null; }

# install_packages pkg...: installs the Debian packages that are missing.
install_packages() {
    local missing=() p
    for p in "$@"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
    if [ ${#missing[@]} -gt 0 ]; then
        log "installing ${missing[*]}"
        as_root apt-get update -q
        as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
    fi
}

# What a Swift build of Herald needs from Debian: the C libraries its wrappers link against.
build_packages=(pkg-config librabbitmq-dev libcurl4-openssl-dev libssl-dev libsqlite3-dev)

# install_build_packages: installs what `swift build` needs that is missing (every script that
# builds calls it first, so each works on a machine that has only Swift).
install_build_packages() { install_packages "${build_packages[@]}"; }

# ensure_broker URL [DIR]: makes sure a RabbitMQ node answers at URL's host and port, starting
# the local node if none does, with its database and logs in DIR (kept), or in a temporary
# folder removed when it stops (a throw-away node: nothing one run declares is there for the
# next). Sets started_node=1 when it started one (stop it with stop_broker).
started_node=0
node_dir=""
throwaway_node=0
ensure_broker() {
    local url="$1" dir="${2:-}" hostport host port
    hostport="${url#*@}"; hostport="${hostport%%/*}"
    host="${hostport%%:*}"; port="${hostport##*:}"; [ "$port" = "$host" ] && port=5672
    if tcp_answers "$host" "$port"; then
        log "using the RabbitMQ node at $host:$port"
        return
    fi
    if [ "$host" != 127.0.0.1 ] && [ "$host" != localhost ]; then
        echo "the broker at $host:$port does not answer" >&2; exit 1
    fi
    install_packages rabbitmq-server
    # A node may be booting already (the package's own service); give it a moment first.
    if ! as_root rabbitmqctl -q await_startup --timeout 5 >/dev/null 2>&1; then
        if [ -n "$dir" ]; then
            node_dir="$dir"
            mkdir -p "$node_dir"
        else
            node_dir="$(mktemp -d /tmp/herald-rabbitmq.XXXXXX)"
            throwaway_node=1
        fi
        as_root chown rabbitmq:rabbitmq "$node_dir" 2>/dev/null || true
        log "starting a RabbitMQ node in $node_dir"
        start_node "$node_dir"
        started_node=1
    fi
    local deadline=$((SECONDS + 120))
    until tcp_answers "$host" "$port" && as_root rabbitmqctl -q await_startup --timeout 10 >/dev/null 2>&1; do
        if [ $SECONDS -gt $deadline ]; then echo "RabbitMQ did not start within 120 s" >&2; exit 1; fi
        printf '.'
        sleep 1
    done
    log "RabbitMQ is up"
}

# start_node DIR: the node as user rabbitmq, started with setpriv rather than the package's
# wrapper: the wrapper goes through su, whose PAM session lowers the soft limit of open
# files to 1,024, and the test suite's hundreds of connections and quorum queues exhaust
# that (the broker then refuses logins and loses its tables). This keeps ours (at least
# 65,536 where the hard limit allows).
#
# Plugins: HERALD_BROKER_PLUGINS (space-separated), by default the management API (which
# `heraldctl queues` reads, on port 15672) and the Prometheus endpoint (port 15692, which the
# dashboards scrape); empty for none.
#
# TLS: with HERALD_TEST_TLS_DIR set (certificates made by make_test_tls, scripts/lib/tls.sh),
# the node also listens for AMQP over TLS on port 5671 with the certificate for localhost,
# verifying a client certificate when one is presented. The node keeps that configuration
# ($dir/rabbitmq.conf) across restarts.
start_node() {
    local dir="$1" limit plugins config=""
    limit="$(ulimit -Hn)"
    [ "$limit" = unlimited ] && limit=65536
    [ "$limit" -gt 65536 ] && limit=65536
    plugins="${HERALD_BROKER_PLUGINS-rabbitmq_management rabbitmq_prometheus}"
    printf '[%s].\n' "$(echo $plugins | tr ' ' ',')" | as_root tee "$dir/enabled_plugins" >/dev/null
    if [ -n "${HERALD_TEST_TLS_DIR:-}" ]; then
        install_tls_files "$HERALD_TEST_TLS_DIR" "$dir/tls" rabbitmq
        as_root tee "$dir/rabbitmq.conf" >/dev/null <<CONF
listeners.ssl.default = 5671
ssl_options.cacertfile = $dir/tls/ca.pem
ssl_options.certfile = $dir/tls/server.pem
ssl_options.keyfile = $dir/tls/server.key
ssl_options.verify = verify_peer
ssl_options.fail_if_no_peer_cert = false
ssl_options.versions.1 = tlsv1.3
ssl_options.versions.2 = tlsv1.2
CONF
    fi
    [ -f "$dir/rabbitmq.conf" ] && config="RABBITMQ_CONFIG_FILE='$dir/rabbitmq.conf'"
    as_root sh -c "ulimit -n $limit; cd /var/lib/rabbitmq && exec env HOME=/var/lib/rabbitmq $config \
        RABBITMQ_MNESIA_BASE='$dir/mnesia' RABBITMQ_LOG_BASE='$dir/log' RABBITMQ_ENABLED_PLUGINS_FILE='$dir/enabled_plugins' \
        setpriv --reuid=rabbitmq --regid=rabbitmq --init-groups /usr/lib/rabbitmq/bin/rabbitmq-server -detached"
}

# broker_dir: the folder start_node was given for the running local node (its data stays
# there across a restart), from the node's RABBITMQ_MNESIA_BASE.
broker_dir() {
    local base
    base="$(as_root rabbitmqctl -q eval 'os:getenv("RABBITMQ_MNESIA_BASE").' | tr -d '"')"
    case "$base" in
        */mnesia) echo "${base%/mnesia}" ;;
        *) echo "the running RabbitMQ node was not started by this script (RABBITMQ_MNESIA_BASE=$base)" >&2; return 1 ;;
    esac
}

# start_node_and_wait DIR: start_node, then wait until the node serves (120 s at most).
start_node_and_wait() {
    start_node "$1"
    local deadline=$((SECONDS + 120))
    until as_root rabbitmqctl -q await_startup --timeout 10 >/dev/null 2>&1; do
        if [ $SECONDS -gt $deadline ]; then echo "RabbitMQ did not start within 120 s" >&2; return 1; fi
        sleep 0.5
    done
}

stop_broker() {
    as_root rabbitmqctl -q stop >/dev/null 2>&1 || true
    if [ "$throwaway_node" -eq 1 ] && [ -n "$node_dir" ]; then as_root rm -rf "$node_dir"; fi
}
