#!/bin/sh
# The stand-in's entry point: runs the server as the rabbitmq user, as the official image
# does. RabbitMQ 3.10 (Debian's) does not read a directory of configuration files from
# RABBITMQ_CONFIG_FILES as 3.13 does, so their contents are joined into one file for it.
set -e
chown -R rabbitmq:rabbitmq /var/lib/rabbitmq
if [ -n "$RABBITMQ_CONFIG_FILES" ] && [ -d "$RABBITMQ_CONFIG_FILES" ]; then
    cat "$RABBITMQ_CONFIG_FILES"/*.conf > /etc/rabbitmq/rabbitmq.conf
    chown rabbitmq /etc/rabbitmq/rabbitmq.conf
    export RABBITMQ_CONFIG_FILE=/etc/rabbitmq/rabbitmq.conf
    unset RABBITMQ_CONFIG_FILES
fi
if [ "$1" = rabbitmq-server ]; then
    exec su -s /bin/sh rabbitmq -c 'exec /usr/lib/rabbitmq/bin/rabbitmq-server'
fi
exec "$@"
