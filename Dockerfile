# One image for every Herald service: the build stage compiles the multi-call `herald` (every
# executable in one binary) in release mode, without debug information and stripped; the
# runtime stage is Debian slim with the C libraries it links, and no compiler, build tree or
# package lists. Pick the service with the command, e.g. `docker run herald herald-gateway`
# (compose.yaml does this); heraldctl, the operator's tool, is in it too. The labels carry the
# version and the source commit: `docker build --build-arg HERALD_COMMIT=$(git rev-parse HEAD) .`
# (compose passes $HERALD_COMMIT and $HERALD_VERSION on).
# The provider sandbox (the demo's stand-in for FCM, Push Kit, APNs and browsers' push services)
# is an image of its own, `docker build --target sandbox .`: the production image ships none of
# it, and `herald` links no emulator.
ARG SWIFT_IMAGE=swift:6.3-bookworm
ARG RUNTIME_IMAGE=debian:bookworm-slim

FROM ${SWIFT_IMAGE} AS build
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      pkg-config librabbitmq-dev libcurl4-openssl-dev libssl-dev libsqlite3-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
# The package's sources only: a change to the tests, docs, scripts or deploy files does not
# rebuild it. The test targets' folders are made empty (the manifest names them; `herald`
# needs none of them).
COPY Package.swift ./
RUN grep -o 'path: "Tests/[^"]*"' Package.swift | cut -d'"' -f2 | xargs mkdir -p
COPY Shared Shared
COPY Providers Providers
COPY EventSources EventSources
COPY Services Services
COPY Tools Tools
COPY Client Client
COPY Benchmarks Benchmarks
# One binary for every service (the multi-call `herald`, linked as each executable's name), in
# release mode without debug information, stripped, with the Swift runtime linked in, so the
# runtime stage needs no toolchain; an executable per service would each carry the same
# 75 MB.
# The provider sandbox is a tool of its own, built here for the sandbox image.
RUN swift build -c release --product herald --static-swift-stdlib -debug-info-format none -Xlinker --strip-all \
 && swift build -c release --product herald-sandbox --static-swift-stdlib -debug-info-format none -Xlinker --strip-all \
 && bin="$(swift build -c release --show-bin-path)" && mkdir -p /out/herald /out/sandbox \
 && cp "$bin/herald" /out/herald/ && cp "$bin/herald-sandbox" /out/sandbox/ \
 && /out/herald/herald links /out/herald \
 && cp -R "$bin"/*.resources /out/herald/

# What both images run on: Debian slim, the C libraries, curl for the health check, the user.
FROM ${RUNTIME_IMAGE} AS runtime
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      librabbitmq4 libcurl4 libsqlite3-0 libssl3 libstdc++6 ca-certificates curl tzdata \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --system --gid 10001 herald \
 && useradd --system --uid 10001 --gid 10001 --no-create-home --home-dir /var/lib/herald herald \
 && mkdir -p /var/lib/herald /var/lib/herald-sandbox && chown herald:herald /var/lib/herald /var/lib/herald-sandbox
# A named volume mounted on /var/lib/herald (SQLite files) or /var/lib/herald-sandbox (the
# sandbox's CA and demo credentials) takes these folders' owner, herald. Both stay empty in
# the image: Docker copies a folder's contents into a new volume, and two replicas created
# at once on one volume both made /var/lib/herald/sandbox there and one failed ("file exists").
# Numeric, so that Kubernetes can check runAsNonRoot (deploy/helm/herald runs it as 10001).
USER 10001:10001
ENV HERALD_LOG_FORMAT=json
# Readiness is on HERALD_OPS_PORT where a service has one (the gateway: its public port
# does not serve health), else on HERALD_HTTP_PORT.
HEALTHCHECK --interval=5s --timeout=3s --retries=20 \
  CMD curl -fsS "http://127.0.0.1:${HERALD_OPS_PORT:-${HERALD_HTTP_PORT:-9080}}/readyz" >/dev/null || exit 1

# The provider sandbox's image (compose's herald-sandbox): `herald-sandbox` alone.
FROM runtime AS sandbox
COPY --from=build /out/sandbox/ /usr/local/bin/
WORKDIR /var/lib/herald-sandbox
ENV HERALD_HTTP_PORT=8090 HERALD_DATA_DIR=/var/lib/herald-sandbox
EXPOSE 8090 8443
ARG HERALD_VERSION=dev
ARG HERALD_COMMIT=unknown
LABEL org.opencontainers.image.title="Herald provider sandbox" \
      org.opencontainers.image.description="Stand-ins for FCM, Push Kit, APNs and Web Push, for demos and tests: not for production" \
      org.opencontainers.image.version="${HERALD_VERSION}" \
      org.opencontainers.image.revision="${HERALD_COMMIT}"
CMD ["herald-sandbox"]

# The production image, the default target: `herald` and its links, no sandbox.
FROM runtime
COPY --from=build /out/herald/ /usr/local/bin/
WORKDIR /var/lib/herald
ENV HERALD_DATA_DIR=/var/lib/herald
EXPOSE 8080
# Last, so that another commit relabels the image without redoing its layers.
ARG HERALD_VERSION=dev
ARG HERALD_COMMIT=unknown
LABEL org.opencontainers.image.title="Herald" \
      org.opencontainers.image.description="Self-hosted push notifications: FCM, Push Kit, APNs and webhooks over RabbitMQ" \
      org.opencontainers.image.version="${HERALD_VERSION}" \
      org.opencontainers.image.revision="${HERALD_COMMIT}"
CMD ["herald-gateway"]
