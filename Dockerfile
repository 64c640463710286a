# One image for every Herald service: the build stage compiles all executables in release
# mode; the runtime stage is Debian slim with the C libraries they link. Pick the service
# with the command, e.g. `docker run herald herald-gateway` (compose.yaml does this);
# heraldctl, the operator's tool, is in it too.
ARG SWIFT_IMAGE=swift:6.3-bookworm
ARG RUNTIME_IMAGE=debian:bookworm-slim

FROM ${SWIFT_IMAGE} AS build
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      pkg-config librabbitmq-dev libcurl4-openssl-dev libssl-dev libsqlite3-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
RUN swift build -c release --static-swift-stdlib \
 && mkdir -p /out \
 && bin="$(swift build -c release --show-bin-path)" \
 && for service in herald-gateway herald-registration herald-preferences herald-encryption \
                   herald-fcm herald-hms herald-webhook herald-apns herald-callback herald-sandbox heraldctl; do \
      cp "$bin/$service" /out/; \
    done \
 && cp -R "$bin"/*.resources /out/

FROM ${RUNTIME_IMAGE}
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      librabbitmq4 libcurl4 libsqlite3-0 libssl3 libstdc++6 ca-certificates curl tzdata \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --create-home --home-dir /var/lib/herald herald \
 && mkdir -p /var/lib/herald/sandbox && chown -R herald /var/lib/herald
# A named volume mounted on /var/lib/herald or its sandbox folder starts as a copy of these
# folders, owned by herald, so the services can write their SQLite files and the sandbox
# its CA.
COPY --from=build /out/ /usr/local/bin/
USER herald
WORKDIR /var/lib/herald
ENV HERALD_DATA_DIR=/var/lib/herald HERALD_LOG_FORMAT=json
EXPOSE 8080
# Readiness is on HERALD_OPS_PORT where a service has one (the gateway: its public port
# does not serve health), else on HERALD_HTTP_PORT.
HEALTHCHECK --interval=5s --timeout=3s --retries=20 \
  CMD curl -fsS "http://127.0.0.1:${HERALD_OPS_PORT:-${HERALD_HTTP_PORT:-9080}}/readyz" >/dev/null || exit 1
CMD ["herald-gateway"]
