#!/bin/sh
# Makes the compose stack's secrets on its first start and keeps them (they live in the
# herald-secrets and rabbitmq-config volumes; `docker compose down -v` forgets them):
#   amqp-password        the broker user herald's password (RabbitMQ gets it in 20-herald.conf)
#   demo-api-key         the API key of the demo app, demo-chat-api-key that of demo-chat
#   demo-webhook-secret  the Standard Webhooks signing secret of the demo webhooks
#   grafana-admin-password  the password of Grafana's admin user
#   postgres-password    the PostgreSQL user herald's password (the scale profile)
# and RabbitMQ's configuration: single/ for one node, cluster/ for the scale profile's three,
# the plugins and the Erlang cookie the cluster's nodes share; and, for the scale profile's
# TLS, a CA of the stack's own (its key in tls-ca/, root's only) with:
#   tls/ca.pem                       the CA's certificate, which the services trust
#   tls/postgres.pem, .key           PostgreSQL's certificate for the host name postgres
#   (rabbitmq-config) tls/server.*   the RabbitMQ nodes' certificate for rabbitmq, rabbitmq-2, rabbitmq-3
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
# each other by name. A node cut off from the other two pauses (pause_minority: it closes its
# clients' connections, so they move to the majority) and rejoins once it reaches them again;
# with the default, ignore, the cluster would stay split until an operator restarts a node.
# net_ticktime 15 (60 by default) tells a partition within 11 to 19 s, while it lasts: one
# told only as it ends leaves the cluster split in either mode (scripts/partition-check,
# docs/resilience.md).
mkdir -p "$broker/single" "$broker/cluster"
printf 'log.console = true\ndefault_user = herald\ndefault_pass = %s\n' "$(cat "$secrets/amqp-password")" > "$broker/single/20-herald.conf"
cp "$broker/single/20-herald.conf" "$broker/cluster/20-herald.conf"
printf 'cluster_formation.peer_discovery_backend = classic_config\ncluster_formation.classic_config.nodes.1 = rabbit@rabbitmq\ncluster_formation.classic_config.nodes.2 = rabbit@rabbitmq-2\ncluster_formation.classic_config.nodes.3 = rabbit@rabbitmq-3\ncluster_partition_handling = pause_minority\nnet_ticktime = 15\n' > "$broker/cluster/30-cluster.conf"
[ -s "$broker/erlang-cookie" ] || random_hex > "$broker/erlang-cookie"
# TLS for the scale profile: one CA, a certificate for the broker's three nodes, one for
# PostgreSQL (EC P-256, ten years; made once, like everything here).
if [ ! -s "$secrets/tls/ca.pem" ]; then
    mkdir -p "$secrets/tls-ca" "$secrets/tls" "$broker/tls"
    key="-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes"
    openssl req -x509 $key -keyout "$secrets/tls-ca/ca.key" -out "$secrets/tls/ca.pem.new" -days 3650 -subj "/CN=Herald compose CA" \
        -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign 2>/dev/null
    issue() { # key-file certificate-file subject names
        openssl req -new $key -keyout "$1" -out "$1.csr" -subj "$3" 2>/dev/null
        printf 'subjectAltName=%s\nextendedKeyUsage=serverAuth\n' "$4" > "$1.ext"
        openssl x509 -req -in "$1.csr" -CA "$secrets/tls/ca.pem.new" -CAkey "$secrets/tls-ca/ca.key" -CAcreateserial \
            -CAserial "$secrets/tls-ca/ca.srl" -days 3650 -out "$2" -extfile "$1.ext" 2>/dev/null
        rm -f "$1.csr" "$1.ext"
    }
    issue "$broker/tls/server.key" "$broker/tls/server.pem" "/CN=rabbitmq" "DNS:rabbitmq,DNS:rabbitmq-2,DNS:rabbitmq-3"
    issue "$secrets/tls/postgres.key" "$secrets/tls/postgres.pem" "/CN=postgres" "DNS:postgres"
    cp "$secrets/tls/ca.pem.new" "$broker/tls/ca.pem"
    mv "$secrets/tls/ca.pem.new" "$secrets/tls/ca.pem"
fi
printf 'listeners.tcp = none\nlisteners.ssl.default = 5671\nssl_options.cacertfile = /etc/rabbitmq/herald.d/tls/ca.pem\nssl_options.certfile = /etc/rabbitmq/herald.d/tls/server.pem\nssl_options.keyfile = /etc/rabbitmq/herald.d/tls/server.key\nssl_options.verify = verify_none\nssl_options.versions.1 = tlsv1.3\nssl_options.versions.2 = tlsv1.2\n' > "$broker/cluster/40-tls.conf"

# Its plugins: the management UI and API (heraldctl queues) and the Prometheus endpoint.
printf '[rabbitmq_management,rabbitmq_prometheus].\n' > "$broker/enabled_plugins"
# The services run as their own users: they may read, nobody may write.
chmod 0444 "$secrets"/amqp-password "$secrets"/demo-api-key "$secrets"/demo-chat-api-key "$secrets"/demo-webhook-secret "$secrets"/grafana-admin-password \
    "$secrets"/postgres-password "$broker"/single/20-herald.conf "$broker"/cluster/*.conf "$broker/enabled_plugins"
# Read by root, which installs it as the node's cookie.
chmod 0400 "$broker/erlang-cookie"
# Certificates for all to read; the broker's key for the node's user (the same image runs
# this), PostgreSQL's for root, which installs it for its server; the CA's key for nobody else.
chmod 0755 "$secrets/tls" "$broker/tls"
chmod 0444 "$secrets/tls"/*.pem "$broker/tls"/*.pem
chmod 0400 "$secrets/tls/postgres.key" "$broker/tls/server.key"
chown rabbitmq "$broker/tls/server.key"
chmod 0700 "$secrets/tls-ca"
echo "make-secrets: the stack's secrets are in place"
