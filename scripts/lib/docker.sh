# Docker on a machine that cannot reach Docker Hub (sourced after scripts/lib/broker.sh):
# Debian's engine and compose, a Debian base image made with debootstrap, and local stand-ins
# for the images compose.yaml names, built from Debian's packages (deploy/standins).

# ensure_dockerd: a Docker engine answers, starting dockerd if none does (started_dockerd=1;
# stop it with stop_dockerd). Installs docker.io, docker-compose and debootstrap if missing.
ensure_dockerd() {
    install_packages docker.io docker-compose debootstrap
    started_dockerd=0
    if docker info >/dev/null 2>&1; then log "using the Docker engine that answers"; return; fi
    # A caller may name the folder beforehand (scripts/test, which starts the engine in the
    # background and stops it itself): the pid file there says dockerd was started here.
    dockerd_dir="${dockerd_dir:-$(mktemp -d)}"
    log "starting dockerd (log in $dockerd_dir/dockerd.log)"
    as_root dockerd --pidfile "$dockerd_dir/dockerd.pid" >"$dockerd_dir/dockerd.log" 2>&1 &
    local deadline=$((SECONDS + 60))
    until docker info >/dev/null 2>&1; do
        if [ $SECONDS -ge $deadline ]; then echo "dockerd did not answer in 60 s: $(tail -5 "$dockerd_dir/dockerd.log")" >&2; return 1; fi
        sleep 0.5
    done
    started_dockerd=1
}

# stop_dockerd: stops the dockerd ensure_dockerd started, and only that one.
stop_dockerd() {
    [ "${started_dockerd:-0}" -eq 1 ] || [ -s "${dockerd_dir:-/nonexistent}/dockerd.pid" ] || return 0
    local pid
    pid="$(cat "$dockerd_dir/dockerd.pid" 2>/dev/null || true)"
    [ -n "$pid" ] && as_root kill "$pid" 2>/dev/null || true
    local deadline=$((SECONDS + 30))
    while [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && [ $SECONDS -lt $deadline ]; do sleep 0.5; done
    rm -f "$dockerd_dir/dockerd.pid"
    started_dockerd=0
}

# base_image NAME: Debian bookworm (debootstrap --variant=minbase) imported as NAME, unless
# the engine has it already.
base_image() {
    local name="$1" root
    docker image inspect "$name" >/dev/null 2>&1 && return 0
    root="$(mktemp -d)"
    log "making $name with debootstrap"
    as_root debootstrap --variant=minbase bookworm "$root" http://deb.debian.org/debian >"$root.log" 2>&1 \
        || { tail -5 "$root.log" >&2; return 1; }
    as_root tar -C "$root" -c . | docker import - "$name" >/dev/null
    as_root rm -rf "$root" "$root.log"
}

# swift_builder_image NAME: the Dockerfile's build stage stand-in: the base with the
# toolchain's system packages, this machine's Swift toolchain (/opt/swift) and its copy of
# the Swift packages (/opt/swift-packages, which git reads for github.com as here), unless
# the engine has NAME already.
swift_builder_image() {
    local name="$1" container="herald-swift-builder-$$" gitconfig
    docker image inspect "$name" >/dev/null 2>&1 && return 0
    [ -x /opt/swift/usr/bin/swift ] || { echo "no Swift toolchain in /opt/swift to make $name from" >&2; return 1; }
    log "making $name from the base, /opt/swift and /opt/swift-packages"
    docker run --cpu-shares "${docker_cpu_shares:-1024}" --name "$container" herald-base:bookworm sh -c 'apt-get update -q >/dev/null \
        && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends binutils git gnupg2 libc6-dev \
           libcurl4-openssl-dev libedit2 libgcc-12-dev libpython3-dev libsqlite3-0 libstdc++-12-dev libxml2-dev libncurses-dev \
           libz3-dev pkg-config tzdata zlib1g-dev ca-certificates >/dev/null \
        && rm -rf /var/lib/apt/lists/*'
    docker cp /opt/swift "$container:/opt/swift"
    [ -d /opt/swift-packages ] && docker cp /opt/swift-packages "$container:/opt/swift-packages"
    gitconfig="$(mktemp)"
    printf '[url "/opt/swift-packages/"]\n\tinsteadOf = https://github.com/\n\tinsteadOf = git@github.com:\n\tinsteadOf = ssh://git@github.com/\n' >"$gitconfig"
    docker cp "$gitconfig" "$container:/etc/gitconfig"
    rm -f "$gitconfig"
    docker commit --change 'ENV PATH=/opt/swift/usr/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' "$container" "$name" >/dev/null
    docker rm "$container" >/dev/null
}

# standin_images: the base (also as the Dockerfile's runtime image, debian:bookworm-slim),
# the Swift builder, and every stand-in of deploy/standins, tagged as compose.yaml and the
# Dockerfile name the official images, unless the engine has them already as deploy/standins
# now makes them (each carries the digest of the folder's files as a label).
standin_images() {
    base_image herald-base:bookworm
    docker image inspect debian:bookworm-slim >/dev/null 2>&1 || docker tag herald-base:bookworm debian:bookworm-slim
    swift_builder_image swift:6.3-bookworm
    local file tag digest
    digest="$(cat deploy/standins/* | sha256sum | cut -c1-16)"
    for file in deploy/standins/*.Dockerfile; do
        tag="$(sed -n 's/^# tag: //p' "$file")"
        [ "$(docker image inspect -f '{{index .Config.Labels "herald.standins"}}' "$tag" 2>/dev/null)" = "$digest" ] && continue
        log "building the stand-in $tag ($file)"
        docker build -q --cpu-shares "${docker_cpu_shares:-1024}" --label "herald.standins=$digest" -t "$tag" -f "$file" deploy/standins >/dev/null
    done
}

# herald_image: herald:latest built from the Dockerfile as compose.yaml's `build:` builds it
# (the same context and build arguments, through the same `docker build`), so that a
# `docker compose up --build` after it finds every layer built and only relabels.
herald_image() {
    log "building herald:latest from the Dockerfile"
    docker build -q --cpu-shares "${docker_cpu_shares:-1024}" \
        --build-arg HERALD_VERSION="${HERALD_VERSION:-dev}" --build-arg HERALD_COMMIT="${HERALD_COMMIT:-unknown}" \
        -t herald:latest . >/dev/null
}

# prepare_compose_images: starts, in the background, everything scripts/compose-check builds
# before its first `up` (the engine, the stand-ins, the herald image), so that the check
# finds them built. scripts/test starts it before its own build: making the stand-ins mostly
# waits on the network and the disk, and what the two builds leave idle of the two cores the
# other takes. Its log is in $dockerd_dir/prepare.log; a failure here only means that the
# check builds them itself.
prepare_compose_images() {
    dockerd_dir="$(mktemp -d)"
    (
        set -e
        ensure_dockerd
        standin_images
        HERALD_COMMIT="$(git rev-parse HEAD 2>/dev/null || echo unknown)" herald_image
        log "the compose check's images are built"
    ) >"$dockerd_dir/prepare.log" 2>&1 &
    prepare_pid=$!
}

# process_tree PID: PID and every process below it.
process_tree() {
    local child
    echo "$1"
    for child in $(pgrep -P "$1"); do process_tree "$child"; done
}

# compose_images_weight WEIGHT: the CPU weight of the background build, "low" or "normal":
# low is nice 19 for its processes on the host and 2 CPU shares (against 1024) for its
# containers, kept on each container it starts while low, so that tests that run beside it
# lose almost nothing to it and it takes only what they leave idle.
compose_images_weight() {
    [ -n "${prepare_pid:-}" ] && kill -0 "$prepare_pid" 2>/dev/null || return 0
    local nice=0 shares=1024 pid
    if [ "$1" = low ]; then nice=19; shares=2; fi
    if [ -n "${weight_keeper:-}" ]; then kill "$weight_keeper" 2>/dev/null || true; wait "$weight_keeper" 2>/dev/null || true; weight_keeper=; fi
    for pid in $(process_tree "$prepare_pid"); do as_root renice -n "$nice" -p "$pid" >/dev/null 2>&1 || true; done
    update_shares() {
        local container
        for container in $(docker ps -q 2>/dev/null); do docker update --cpu-shares "$1" "$container" >/dev/null 2>&1 || true; done
    }
    update_shares "$shares"
    if [ "$1" = low ]; then
        ( while sleep 5; do update_shares 2; done ) >/dev/null 2>&1 &
        weight_keeper=$!
    fi
}

# finish_compose_images: waits for prepare_compose_images at full weight, and prints its log
# if it failed.
finish_compose_images() {
    [ -n "${prepare_pid:-}" ] || return 0
    local started=$SECONDS
    compose_images_weight normal
    log "waiting for the compose check's images (building in the background)"
    if wait "$prepare_pid"; then
        log "the compose check's images were ready, $(( SECONDS - started )) s after the wait began"
    else
        log "building the compose check's images in the background failed (the check builds them itself):"
        tail -20 "$dockerd_dir/prepare.log"
    fi
    prepare_pid=
}
