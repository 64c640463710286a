# tag: rabbitmq:3.13-management
# A stand-in for the official RabbitMQ image where Docker Hub cannot be reached: Debian's
# rabbitmq-server (3.10) with the same entry point name and the plugins compose enables, and
# openssl, which the official image has too (make-secrets.sh makes the stack's certificates).
FROM herald-base:bookworm
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends rabbitmq-server openssl \
 && rm -rf /var/lib/apt/lists/*
COPY rabbitmq-entrypoint.sh /usr/local/bin/docker-entrypoint.sh
ENV HOME=/var/lib/rabbitmq
EXPOSE 5671 5672 15672 15692
CMD ["docker-entrypoint.sh", "rabbitmq-server"]
