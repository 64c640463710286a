#!/bin/sh
# Makes the compose stack's secrets on its first start and keeps them (they live in the
# herald-secrets and rabbitmq-config volumes; `docker compose down -v` forgets them):
#   amqp-password        the broker user herald's password (RabbitMQ gets it in 20-herald.conf)
#   demo-api-key         the API key of the demo app, demo-chat-api-key that of demo-chat
#   demo-webhook-secret  the Standard Webhooks signing secret of the demo webhooks
#   grafana-admin-password  the password of Grafana's admin user
#   postgres-password    the PostgreSQL user herald's password (the scale profile)
# and RabbitMQ's configuration: single/ for one node, cluster/ for the scale profile's three,
# the plugins and the Erlang cookie the cluster's nodes share.
# Nothing is printed: read a key with
#   docker compose exec herald-gateway cat /etc/herald/secrets/demo-api-key
#
#   make-secrets.sh [SECRETS_DIR=/secrets] [RABBITMQ_CONFIG_DIR=/rabbitmq-config]
set -eu
secrets="${1:-/secrets}"
broker="${2:-/rabbitmq-config}"
umask 077
mkdir -p "$secrets" "$broker"

# 32 random bytes as 64 hex digits.
random_hex() { od -An -N32 -tx1 /dev/urandom | tr -d ' \n'; }

make() {
    [ -s "$secrets/$1" ] && return 0
    "$2" > "$secrets/$1.new"
    mv "$secrets/$1.new" "$secrets/$1"
}
# whsec_ and 32 random bytes in base64, as Standard Webhooks secrets are written.
webhook_secret() { printf 'whsec_%s' "$(head -c 32 /dev/urandom | base64 | tr -d '\n')"; }

make amqp-password random_hex
make demo-api-key random_hex
make demo-chat-api-key random_hex
make demo-webhook-secret webhook_secret
make grafana-admin-password random_hex
make postgres-password random_hex

# RabbitMQ's only user is herald, with that password (no guest); the cluster's nodes find
# each other by name.
mkdir -p "$broker/single" "$broker/cluster"
printf 'log.console = true\ndefault_user = herald\ndefault_pass = %s\n' "$(cat "$secrets/amqp-password")" > "$broker/single/20-herald.conf"
cp "$broker/single/20-herald.conf" "$broker/cluster/20-herald.conf"
printf 'cluster_formation.peer_discovery_backend = classic_config\ncluster_formation.classic_config.nodes.1 = rabbit@rabbitmq\ncluster_formation.classic_config.nodes.2 = rabbit@rabbitmq-2\ncluster_formation.classic_config.nodes.3 = rabbit@rabbitmq-3\n' > "$broker/cluster/30-cluster.conf"
[ -s "$broker/erlang-cookie" ] || random_hex > "$broker/erlang-cookie"
# Its plugins: the management UI and API (heraldctl queues) and the Prometheus endpoint.
printf '[rabbitmq_management,rabbitmq_prometheus].\n' > "$broker/enabled_plugins"
# The services run as their own users: they may read, nobody may write.
chmod 0444 "$secrets"/amqp-password "$secrets"/demo-api-key "$secrets"/demo-chat-api-key "$secrets"/demo-webhook-secret "$secrets"/grafana-admin-password \
    "$secrets"/postgres-password "$broker"/single/20-herald.conf "$broker"/cluster/*.conf "$broker/enabled_plugins"
# Read by root, which installs it as the node's cookie.
chmod 0400 "$broker/erlang-cookie"
echo "make-secrets: the stack's secrets are in place"
