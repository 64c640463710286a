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

# The RabbitMQ node these functions start and talk to. By default the machine's usual node
# (rabbitmqctl's default name, AMQP on 5672, TLS on 5671, management on 15672, Prometheus on
# 15692); start_test_broker sets all of them to a node of its own, on ports of its own.
rabbitmq_node=""        # empty: rabbitmqctl's default node
node_amqp_port=5672
node_tls_port=5671
node_management_port=15672
node_prometheus_port=15692
node_dist_port=""       # empty: RabbitMQ's default, the AMQP port + 20000

# node_ctl ARGS...: rabbitmqctl against the node above.
node_ctl() { as_root rabbitmqctl -q ${rabbitmq_node:+-n "$rabbitmq_node"} "$@"; }

# ensure_broker URL [DIR]: makes sure a RabbitMQ node answers at URL's host and port, starting
# the local node if none does, with its database and logs in DIR (kept), or in a temporary
# folder removed when it stops (a throw-away node: nothing one run declares is there for the
# next). Sets started_node=1 when it started one (stop it with stop_broker). For scripts/run
# and the benchmarks; scripts/test starts a node of its own (start_test_broker).
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
    if ! node_ctl await_startup --timeout 5 >/dev/null 2>&1; then
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
    until tcp_answers "$host" "$port" && node_ctl await_startup --timeout 10 >/dev/null 2>&1; do
        if [ $SECONDS -gt $deadline ]; then echo "RabbitMQ did not start within 120 s" >&2; exit 1; fi
        printf '.'
        sleep 1
    done
    log "RabbitMQ is up"
}

# free_ports N: N TCP ports on 127.0.0.1 that nothing listens on now, one a line, taken below
# the kernel's range for outgoing connections (whose ports any connection may take before the
# server binds them).
free_ports() {
    python3 -c '
import random, socket, sys
low, high = map(int, open("/proc/sys/net/ipv4/ip_local_port_range").read().split())
candidates = range(10000, low) if low > 11000 else range(high + 1, 65536)
ports = []
while len(ports) < int(sys.argv[1]):
    port = random.choice(candidates)
    if port in ports:
        continue
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            continue
    ports.append(port)
print("\n".join(map(str, ports)))
' "$1"
}

# start_test_broker: a throw-away RabbitMQ node for the tests, whatever else runs on this
# machine: its own node name (herald-test-PORT@localhost), its own free ports for AMQP, AMQP
# over TLS, the management API, the Prometheus endpoint and Erlang distribution, and its
# database in a temporary folder, removed by stop_broker. It has exactly what the tests need:
# the TLS listener (with HERALD_TEST_TLS_DIR), the management and Prometheus plugins, and
# rabbitmqctl reaches it by name (for the policies, alarms and restarts the tests set).
# Exports what the tests read: HERALD_TEST_AMQP_URL, HERALD_TEST_AMQPS_PORT,
# HERALD_TEST_MANAGEMENT_URL, HERALD_TEST_RABBITMQ_METRICS_URL and HERALD_TEST_RABBITMQ_NODE.
start_test_broker() {
    install_packages rabbitmq-server
    local ports
    mapfile -t ports < <(free_ports 5)
    node_amqp_port=${ports[0]} node_tls_port=${ports[1]} node_management_port=${ports[2]}
    node_prometheus_port=${ports[3]} node_dist_port=${ports[4]}
    rabbitmq_node="herald-test-$node_amqp_port@localhost"
    node_dir="$(mktemp -d /tmp/herald-rabbitmq.XXXXXX)"
    throwaway_node=1
    as_root chown rabbitmq:rabbitmq "$node_dir"
    log "starting RabbitMQ node $rabbitmq_node in $node_dir (AMQP $node_amqp_port, TLS $node_tls_port, management $node_management_port, Prometheus $node_prometheus_port)"
    HERALD_BROKER_PLUGINS="rabbitmq_management rabbitmq_prometheus" start_node "$node_dir"
    started_node=1
    local deadline=$((SECONDS + 120))
    until node_ctl await_startup --timeout 10 >/dev/null 2>&1 && tcp_answers 127.0.0.1 "$node_amqp_port"; do
        if [ $SECONDS -gt $deadline ]; then
            echo "RabbitMQ node $rabbitmq_node did not start within 120 s; its log:" >&2
            as_root sh -c "tail -n 40 '$node_dir'/log/*.log" >&2 || true
            exit 1
        fi
        sleep 1
    done
    export HERALD_TEST_AMQP_URL="amqp://guest:guest@127.0.0.1:$node_amqp_port/"
    export HERALD_TEST_AMQPS_PORT=$node_tls_port
    export HERALD_TEST_MANAGEMENT_URL="http://127.0.0.1:$node_management_port"
    export HERALD_TEST_RABBITMQ_METRICS_URL="http://127.0.0.1:$node_prometheus_port/metrics/per-object"
    export HERALD_TEST_RABBITMQ_NODE=$rabbitmq_node
    log "RabbitMQ node $rabbitmq_node is up"
}

# check_test_broker: for a broker the tests were pointed at (HERALD_TEST_AMQP_URL) rather than
# one start_test_broker made, checks that it has what the tests need and says what is
# missing: AMQP answers, rabbitmqctl reaches the node (HERALD_TEST_RABBITMQ_NODE, else
# rabbitmqctl's default) and it is that broker, the TLS listener (HERALD_TEST_AMQPS_PORT,
# default 5671), the management API (HERALD_TEST_MANAGEMENT_URL) and the Prometheus endpoint
# (HERALD_TEST_RABBITMQ_METRICS_URL). Exits 1 when anything is missing.
check_test_broker() {
    local url="$HERALD_TEST_AMQP_URL" hostport host port missing=() listeners
    hostport="${url#*@}"; hostport="${hostport%%/*}"
    host="${hostport%%:*}"; port="${hostport##*:}"; [ "$port" = "$host" ] && port=5672
    rabbitmq_node="${HERALD_TEST_RABBITMQ_NODE:-}"
    export HERALD_TEST_AMQPS_PORT="${HERALD_TEST_AMQPS_PORT:-5671}"
    export HERALD_TEST_MANAGEMENT_URL="${HERALD_TEST_MANAGEMENT_URL:-http://$host:15672}"
    export HERALD_TEST_RABBITMQ_METRICS_URL="${HERALD_TEST_RABBITMQ_METRICS_URL:-http://$host:15692/metrics/per-object}"
    log "checking the RabbitMQ node at $host:$port (HERALD_TEST_AMQP_URL) for what the tests need"
    tcp_answers "$host" "$port" || missing+=("nothing answers AMQP at $host:$port")
    if ! listeners="$(node_ctl eval '[P || {listener, _, _, _, P, _} <- rabbit_networking:active_listeners()].' 2>&1)"; then
        missing+=("rabbitmqctl cannot reach the node ${rabbitmq_node:-rabbit@$(hostname -s)}: set HERALD_TEST_RABBITMQ_NODE to its name (the tests set policies and alarms and restart the node through rabbitmqctl)")
    elif ! grep -Eq "(\[|,)$port(,|\])" <<<"$listeners"; then
        missing+=("the node rabbitmqctl reaches (${rabbitmq_node:-rabbit@$(hostname -s)}) listens on $listeners, not on AMQP port $port: set HERALD_TEST_RABBITMQ_NODE to the name of the node behind HERALD_TEST_AMQP_URL")
    fi
    tcp_answers "$host" "$HERALD_TEST_AMQPS_PORT" || missing+=("no TLS listener on $host:$HERALD_TEST_AMQPS_PORT (HERALD_TEST_AMQPS_PORT), with a certificate for localhost from the CA in $HERALD_TEST_TLS_DIR")
    curl -fsS -o /dev/null -u guest:guest "$HERALD_TEST_MANAGEMENT_URL/api/overview" 2>/dev/null \
        || missing+=("no management API at $HERALD_TEST_MANAGEMENT_URL (HERALD_TEST_MANAGEMENT_URL; plugin rabbitmq_management)")
    curl -fsS -o /dev/null "$HERALD_TEST_RABBITMQ_METRICS_URL" 2>/dev/null \
        || missing+=("no Prometheus endpoint at $HERALD_TEST_RABBITMQ_METRICS_URL (HERALD_TEST_RABBITMQ_METRICS_URL; plugin rabbitmq_prometheus)")
    if [ ${#missing[@]} -gt 0 ]; then
        echo "the broker at HERALD_TEST_AMQP_URL lacks what the tests need:" >&2
        printf '  - %s\n' "${missing[@]}" >&2
        echo "without HERALD_TEST_AMQP_URL, scripts/test starts a node of its own that has all of it" >&2
        exit 1
    fi
    export HERALD_TEST_RABBITMQ_NODE="$rabbitmq_node"
    log "the RabbitMQ node at $host:$port has what the tests need"
}

# start_node DIR: the node (rabbitmq_node, on the node_* ports above) as user rabbitmq,
# started with setpriv rather than the package's wrapper: the wrapper goes through su, whose
# PAM session lowers the soft limit of open files to 1,024, and the test suite's hundreds of
# connections and quorum queues exhaust that (the broker then refuses logins and loses its
# tables). This keeps ours (at least 65,536 where the hard limit allows).
#
# Plugins: HERALD_BROKER_PLUGINS (space-separated), by default the management API (which
# `heraldctl queues` reads, on node_management_port) and the Prometheus endpoint (on
# node_prometheus_port, which the dashboards scrape); empty for none.
#
# TLS: with HERALD_TEST_TLS_DIR set (certificates made by make_test_tls, scripts/lib/tls.sh),
# the node also listens for AMQP over TLS on node_tls_port with the certificate for
# localhost, verifying a client certificate when one is presented. The node keeps its
# configuration ($dir/rabbitmq.conf) across restarts.
start_node() {
    local dir="$1" limit plugins node_env=""
    limit="$(ulimit -Hn)"
    [ "$limit" = unlimited ] && limit=65536
    [ "$limit" -gt 65536 ] && limit=65536
    plugins="${HERALD_BROKER_PLUGINS-rabbitmq_management rabbitmq_prometheus}"
    printf '[%s].\n' "$(echo $plugins | tr ' ' ',')" | as_root tee "$dir/enabled_plugins" >/dev/null
    [ -n "${HERALD_TEST_TLS_DIR:-}" ] && install_tls_files "$HERALD_TEST_TLS_DIR" "$dir/tls" rabbitmq
    {
        echo "listeners.tcp.default = $node_amqp_port"
        echo "management.tcp.port = $node_management_port"
        echo "prometheus.tcp.port = $node_prometheus_port"
        if [ -n "${HERALD_TEST_TLS_DIR:-}" ]; then
            cat <<CONF
listeners.ssl.default = $node_tls_port
ssl_options.cacertfile = $dir/tls/ca.pem
ssl_options.certfile = $dir/tls/server.pem
ssl_options.keyfile = $dir/tls/server.key
ssl_options.verify = verify_peer
ssl_options.fail_if_no_peer_cert = false
ssl_options.versions.1 = tlsv1.3
ssl_options.versions.2 = tlsv1.2
CONF
        fi
    } | as_root tee "$dir/rabbitmq.conf" >/dev/null
    [ -n "$rabbitmq_node" ] && node_env="$node_env RABBITMQ_NODENAME='$rabbitmq_node' RABBITMQ_PID_FILE='$dir/pid'"
    [ -n "$node_dist_port" ] && node_env="$node_env RABBITMQ_DIST_PORT='$node_dist_port'"
    as_root sh -c "ulimit -n $limit; cd /var/lib/rabbitmq && exec env HOME=/var/lib/rabbitmq RABBITMQ_CONFIG_FILE='$dir/rabbitmq.conf' $node_env \
        RABBITMQ_MNESIA_BASE='$dir/mnesia' RABBITMQ_LOG_BASE='$dir/log' RABBITMQ_ENABLED_PLUGINS_FILE='$dir/enabled_plugins' \
        setpriv --reuid=rabbitmq --regid=rabbitmq --init-groups /usr/lib/rabbitmq/bin/rabbitmq-server -detached"
}

# broker_dir: the folder start_node was given for the running local node (its data stays
# there across a restart), from the node's RABBITMQ_MNESIA_BASE.
broker_dir() {
    local base
    base="$(node_ctl eval 'os:getenv("RABBITMQ_MNESIA_BASE").' | tr -d '"')"
    case "$base" in
        */mnesia) echo "${base%/mnesia}" ;;
        *) echo "the running RabbitMQ node was not started by this script (RABBITMQ_MNESIA_BASE=$base)" >&2; return 1 ;;
    esac
}

# start_node_and_wait DIR: start_node, then wait until the node serves (120 s at most).
start_node_and_wait() {
    start_node "$1"
    local deadline=$((SECONDS + 120))
    until node_ctl await_startup --timeout 10 >/dev/null 2>&1; do
        if [ $SECONDS -gt $deadline ]; then echo "RabbitMQ did not start within 120 s" >&2; return 1; fi
        sleep 0.5
    done
}

# stop_broker: stops the node this script started and removes a throw-away node's folder.
stop_broker() {
    node_ctl stop >/dev/null 2>&1 || true
    if [ "$throwaway_node" -eq 1 ] && [ -n "$node_dir" ]; then as_root rm -rf "$node_dir"; fi
    started_node=0
}
