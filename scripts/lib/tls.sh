# Test certificates for the TLS listeners of the local RabbitMQ node and PostgreSQL cluster.
# scripts/lib/broker.sh sources it (it uses log and as_root from there).
#
#   make_test_tls DIR   makes, once, in DIR:
#     ca.pem, ca.key          a CA for the tests (EC P-256, ten years)
#     server.pem, server.key  the servers' certificate, for the host name localhost only (so
#                             127.0.0.1 is a wrong host name for it), signed by the CA
#     client.pem, client.key  a client certificate signed by the CA (CN herald-client)
#     other-ca.pem            a CA that signed nothing here: a wrong CA for the tests
make_test_tls() {
    local dir="$1"
    [ -f "$dir/other-ca.pem" ] && return 0
    log "making test certificates in $dir"
    mkdir -p "$dir"
    (
        set -e
        cd "$dir"
        local key=(-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes)
        openssl req -x509 "${key[@]}" -keyout ca.key -out ca.pem -days 3650 -subj "/CN=Herald test CA" \
            -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign 2>/dev/null
        openssl req -x509 "${key[@]}" -keyout other-ca.key -out other-ca.pem.tmp -days 3650 -subj "/CN=Herald test CA" \
            -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign 2>/dev/null
        issue() { # name subject extensions
            openssl req -new "${key[@]}" -keyout "$1.key" -out "$1.csr" -subj "$2" 2>/dev/null
            printf '%s\n' "$3" > "$1.ext"
            openssl x509 -req -in "$1.csr" -CA ca.pem -CAkey ca.key -CAcreateserial -days 3650 -out "$1.pem" -extfile "$1.ext" 2>/dev/null
            rm -f "$1.csr" "$1.ext"
        }
        issue server "/CN=localhost" "subjectAltName=DNS:localhost
extendedKeyUsage=serverAuth"
        issue client "/CN=herald-client" "extendedKeyUsage=clientAuth"
        rm -f other-ca.key ca.srl
        chmod 644 ./*.pem
        chmod 600 ./*.key
        mv other-ca.pem.tmp other-ca.pem
    )
}

# install_tls_files SRC DEST OWNER: copies the server's certificate and key and the CA into
# DEST, readable by OWNER only where it matters (the key).
install_tls_files() {
    local src="$1" dest="$2" owner="$3"
    as_root mkdir -p "$dest"
    as_root cp "$src/ca.pem" "$src/server.pem" "$src/server.key" "$dest/"
    as_root chown -R "$owner:$owner" "$dest"
    as_root chmod 600 "$dest/server.key"
}
