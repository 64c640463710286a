# A RabbitMQ cluster of several nodes on this machine (distinct node names and ports), for the
# cluster failover test and for trying Herald against a cluster without Docker. Source it after
# scripts/lib/broker.sh (it uses log, as_root and tcp_answers).
#
#   start_cluster DIR PORT...   one node per AMQP port (herald-1@localhost on the first, ...),
#                               joined into one cluster; data and logs under DIR
#   stop_node DIR INDEX         stops node INDEX (1-based), as a crash of that machine would
#   stop_cluster DIR            stops every node it started and removes DIR
#
# Each node listens on its AMQP port and, for Erlang distribution, that port + 20000; no
# plugins, so nothing else is bound. The nodes share the rabbitmq user's Erlang cookie.

cluster_node() { echo "herald-$1@localhost"; }

start_cluster_node() {
    local dir="$1" index="$2" port="$3" limit node
    node="$(cluster_node "$index")"
    mkdir -p "$dir/$index"
    printf '[].\n' > "$dir/$index/enabled_plugins"
    as_root chown -R rabbitmq:rabbitmq "$dir/$index"
    limit="$(ulimit -Hn)"; [ "$limit" = unlimited ] && limit=65536; [ "$limit" -gt 65536 ] && limit=65536
    as_root sh -c "ulimit -n $limit; cd /var/lib/rabbitmq && exec env HOME=/var/lib/rabbitmq \
        RABBITMQ_NODENAME='$node' RABBITMQ_NODE_PORT='$port' RABBITMQ_DIST_PORT='$((port + 20000))' \
        RABBITMQ_MNESIA_BASE='$dir/$index/mnesia' RABBITMQ_LOG_BASE='$dir/$index/log' \
        RABBITMQ_ENABLED_PLUGINS_FILE='$dir/$index/enabled_plugins' RABBITMQ_PID_FILE='$dir/$index/pid' \
        setpriv --reuid=rabbitmq --regid=rabbitmq --init-groups /usr/lib/rabbitmq/bin/rabbitmq-server -detached"
    local deadline=$((SECONDS + 120))
    until as_root rabbitmqctl -q -n "$node" await_startup --timeout 10 >/dev/null 2>&1; do
        if [ $SECONDS -gt $deadline ]; then echo "node $node did not start within 120 s" >&2; return 1; fi
        sleep 1
    done
}

start_cluster() {
    local dir="$1"; shift
    local index=1 port first
    mkdir -p "$dir"
    as_root chown rabbitmq:rabbitmq "$dir"
    for port in "$@"; do
        log "starting RabbitMQ node $(cluster_node $index) on port $port"
        start_cluster_node "$dir" "$index" "$port"
        if [ "$index" -gt 1 ]; then
            first="$(cluster_node 1)"
            as_root rabbitmqctl -q -n "$(cluster_node $index)" stop_app
            as_root rabbitmqctl -q -n "$(cluster_node $index)" join_cluster "$first"
            as_root rabbitmqctl -q -n "$(cluster_node $index)" start_app
        fi
        echo "$index" >> "$dir/nodes"
        index=$((index + 1))
    done
    log "cluster of $((index - 1)) nodes up"
}

stop_node() {
    as_root rabbitmqctl -q -n "$(cluster_node "$2")" stop >/dev/null 2>&1 || true
}

stop_cluster() {
    local dir="$1" index
    [ -f "$dir/nodes" ] || return 0
    for index in $(cat "$dir/nodes"); do stop_node "$dir" "$index"; done
    as_root rm -rf "$dir"
}
