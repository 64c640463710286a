# tag: prom/prometheus:v2.53.0
# A stand-in for the official Prometheus image where Docker Hub cannot be reached: Debian's
# prometheus, with the official image's entry point and data folder (Debian's default data
# folder, /var/lib/prometheus/metrics2, leads to it).
FROM herald-base:bookworm
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends prometheus ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && mkdir -p /prometheus /var/lib/prometheus && chown nobody:nogroup /prometheus \
 && rm -rf /var/lib/prometheus/metrics2 && ln -s /prometheus /var/lib/prometheus/metrics2
USER nobody
WORKDIR /prometheus
EXPOSE 9090
ENTRYPOINT ["/usr/bin/prometheus"]
CMD ["--config.file=/etc/prometheus/prometheus.yml", "--storage.tsdb.path=/prometheus"]
