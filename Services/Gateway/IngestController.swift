import Foundation
import HeraldDomain
import HeraldModel

/// The endpoints that manage an app's ingest URLs (`…/ingest-urls`, the `admin` scope): make
/// one for a source, with an optional list of sender networks; rotate its secret (two are
/// valid at once until the old one is revoked); revoke a secret or the whole URL; list them.
/// A secret is made here, shown once in the answer that makes it, and only its SHA-256
/// leaves the gateway (to Registration, which keeps it). The apps file's URLs are listed too,
/// and cannot be changed here (409).
struct IngestController {
    let gateway: Gateway

    func list(_ call: Gateway.Call) async throws -> Gateway.Reply {
        let stored = try await gateway.call(RegistrationCommand.listIngestURLs(app: call.app), to: .registration, RegistrationReply.self).ingestURLs ?? []
        return try Gateway.json(200, ["ingestURLs": gateway.ingest.fileURLs(app: call.app) + stored])
    }

    func create(_ call: Gateway.Call) async throws -> Gateway.Reply {
        let body = try call.fields()
        let id = try Self.id(try body.string("id", maxLength: 64), field: "id")
        let source = try body.oneOf("source", gateway.sources.ingestSources)
        var networks: [String] = []
        if body.has("networks") {
            for (index, text) in try body.strings("networks", allowEmpty: true).enumerated() {
                guard let network = NetworkCIDR(text) else { throw GatewayError.invalid("networks[\(index)]", "must be an IPv4 or IPv6 network, as 192.0.2.0/24 or 2001:db8::/32") }
                networks.append(network.description)
            }
            guard networks.count <= 32 else { throw GatewayError.invalid("networks", "lists at most 32 networks") }
        }
        try refuseFileURL(id, app: call.app)
        return try await addSecret(call, id: id, source: source, networks: networks)
    }

    func rotate(_ call: Gateway.Call) async throws -> Gateway.Reply {
        let id = try Self.id(try call.parameter("id"), field: "id")
        try refuseFileURL(id, app: call.app)
        return try await addSecret(call, id: id, source: nil, networks: [])
    }

    func revoke(_ call: Gateway.Call) async throws -> Gateway.Reply {
        let id = try Self.id(try call.parameter("id"), field: "id")
        let fingerprint = call.request.parameters["fingerprint"] == nil ? nil : try call.parameter("fingerprint")
        if let fingerprint, fingerprint.range(of: "^[0-9a-fA-F]{8}$", options: .regularExpression) == nil {
            throw GatewayError.invalid("fingerprint", "must be the secret's fingerprint: 8 hex digits")
        }
        try refuseFileURL(id, app: call.app)
        let reply = try await gateway.call(RegistrationCommand.revokeIngestSecret(app: call.app, id: id, fingerprint: fingerprint), to: .registration, RegistrationReply.self)
        // Refused here at once; the other gateways within their next read (a few seconds).
        gateway.ingest.removeStored(app: call.app, id: id, fingerprint: fingerprint)
        return try Gateway.json(200, reply)
    }

    /// A new secret for the URL, made here and answered once with its path.
    private func addSecret(_ call: Gateway.Call, id: String, source: String?, networks: [String]) async throws -> Gateway.Reply {
        let secret = IngestURL.newSecret()
        let sha256 = IngestURL.sha256(secret: secret)
        let reply = try await gateway.call(
            RegistrationCommand.addIngestSecret(app: call.app, id: id, source: source, networks: networks, sha256: sha256), to: .registration, RegistrationReply.self)
        guard let url = reply.ingestURL, let endpoint = gateway.endpoints.first(where: { $0.ingestSource == url.source }) else {
            throw GatewayError(502, "Bad Gateway", "Registration answered no ingest URL")
        }
        gateway.ingest.insertStored(IngestSecretEntry(app: call.app, id: id, source: url.source, networks: url.networks, sha256: sha256))
        let made = MadeIngestURL(
            id: url.id, source: url.source, networks: url.networks, secrets: url.secrets, secret: secret,
            fingerprint: IngestURL.fingerprint(sha256: sha256), path: IngestSecrets.pathPrefix + secret + endpoint.route.path)
        return try Gateway.json(201, made)
    }

    /// 409 for an id the apps file holds: the file is that URL's source of truth.
    private func refuseFileURL(_ id: String, app: String) throws(GatewayError) {
        guard !gateway.ingest.fileURLs(app: app).contains(where: { $0.id == id }) else {
            throw GatewayError(409, "Conflict", "ingest URL \(id) is defined in the apps file: change it there")
        }
    }

    /// An ingest URL's id: 1 to 64 letters, digits, '-', '_' or '.'.
    static func id(_ text: String, field: String) throws(GatewayError) -> String {
        guard text.range(of: "^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$", options: .regularExpression) != nil else {
            throw GatewayError.invalid(field, "must be 1 to 64 letters, digits, '.', '_' or '-'")
        }
        return text
    }
}

/// The answer that makes an ingest URL or a new secret of one: the only time the secret and
/// the path that carries it are shown.
struct MadeIngestURL: Encodable {
    var id: String
    var source: String
    var networks: [String]
    var secrets: [IngestURL.Secret]
    /// The new secret, shown this once.
    var secret: String
    var fingerprint: String
    /// The URL's path below the gateway's public address: `/v1/ingest/{secret}/<source path>`.
    var path: String
}
