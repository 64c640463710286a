# Docker on a machine that cannot reach Docker Hub (sourced after scripts/lib/broker.sh):
# Debian's engine and compose, a Debian base image made with debootstrap, and local stand-ins
# for the images compose.yaml names, built from Debian's packages (deploy/standins).

# ensure_dockerd: a Docker engine answers, starting dockerd if none does (started_dockerd=1;
# stop it with stop_dockerd). Installs docker.io, docker-compose and debootstrap if missing.
ensure_dockerd() {
    install_packages docker.io docker-compose debootstrap
    started_dockerd=0
    if docker info >/dev/null 2>&1; then log "using the Docker engine that answers"; return; fi
    dockerd_dir="$(mktemp -d)"
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
    [ "${started_dockerd:-0}" -eq 1 ] || return 0
    local pid
    pid="$(cat "$dockerd_dir/dockerd.pid" 2>/dev/null || true)"
    [ -n "$pid" ] && as_root kill "$pid" 2>/dev/null || true
    local deadline=$((SECONDS + 30))
    while [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && [ $SECONDS -lt $deadline ]; do sleep 0.5; done
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
    docker run --name "$container" herald-base:bookworm sh -c 'apt-get update -q >/dev/null \
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
        docker build -q --label "herald.standins=$digest" -t "$tag" -f "$file" deploy/standins >/dev/null
    done
}
