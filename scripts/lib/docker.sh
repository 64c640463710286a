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

# standin_images: the base and every stand-in of deploy/standins, tagged as compose.yaml
# names the official images, unless the engine has them already.
standin_images() {
    base_image herald-base:bookworm
    local file tag
    for file in deploy/standins/*.Dockerfile; do
        tag="$(sed -n 's/^# tag: //p' "$file")"
        docker image inspect "$tag" >/dev/null 2>&1 && continue
        log "building the stand-in $tag ($file)"
        docker build -q -t "$tag" -f "$file" deploy/standins >/dev/null
    done
}
