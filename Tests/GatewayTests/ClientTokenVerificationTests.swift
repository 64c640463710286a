import Crypto
import Foundation
@testable import Gateway
import HeraldControl
import HeraldDomain
import HeraldModel
import ServiceKit
import Synchronization
import Testing

/// What the gateway's client-token check remembers and what the apps file must give it. (The
/// tokens of an independent library, and every refusal, are in ServicesTests' ClientTokenTests.)
struct ClientTokenVerificationTests {
    static let secret = String(repeating: "s", count: 40)

    /// A folder with the app's secret, and its apps file.
    static func apps(secret: String = secret, extra: String = "") throws -> AppsConfiguration {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("client-tokens-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(secret.utf8).write(to: folder.appendingPathComponent("secret"))
        return try AppsConfiguration.parse("apps:\n  chat:\n    clientTokens:\n      hmacSecretFile: secret\n\(extra)", relativeTo: folder)
    }

    /// A token for `u-1` issued at `issued`, living `ttl` seconds, as `heraldctl client-token` mints it.
    static func token(issued: Int, ttl: Int) throws -> String {
        try NewClientToken(apps: try apps(), app: "chat", user: "u-1", ttl: ttl, now: Date(timeIntervalSince1970: TimeInterval(issued))).token
    }

    static func verify(_ tokens: ClientTokens, _ token: String) throws(GatewayError) -> ClientIdentity {
        try tokens.verify(Substring(token), digest: Array(SHA256.hash(data: Data(token.utf8))), app: "chat")
    }

    @Test func aRememberedTokenStillExpires() throws {
        let clock = Mutex(Date(timeIntervalSince1970: 1_000_000))
        let tokens = try ClientTokens(apps: try Self.apps(), now: { clock.withLock { $0 } })
        let token = try Self.token(issued: 1_000_000, ttl: 600)
        #expect(try Self.verify(tokens, token) == ClientIdentity(userId: "u-1"))
        clock.withLock { $0 = Date(timeIntervalSince1970: 1_000_600) }
        #expect(try Self.verify(tokens, token).userId == "u-1", "within the minute of leeway")
        clock.withLock { $0 = Date(timeIntervalSince1970: 1_000_661) }
        #expect(throws: GatewayError(401, "Unauthorized", "the client token expired")) { try Self.verify(tokens, token) }
    }

    @Test func aRememberedTokenServesOnlyItsOwnApp() throws {
        let tokens = try ClientTokens(apps: try Self.apps())
        let now = Int(Date().timeIntervalSince1970)
        let token = try Self.token(issued: now, ttl: 60)
        _ = try Self.verify(tokens, token)
        #expect(throws: GatewayError.self) {
            try tokens.verify(Substring(token), digest: Array(SHA256.hash(data: Data(token.utf8))), app: "other")
        }
    }

    @Test func anHS256SecretShorterThan32BytesIsRefusedAtStart() throws {
        #expect(throws: ConfigurationError.self) { try ClientTokens(apps: try Self.apps(secret: String(repeating: "s", count: 31))) }
    }

    @Test func clientTokensNeedAKeyAndAMaxLifetimeFromAMinuteToThirtyDays() throws {
        #expect(throws: ConfigurationError.self) { try AppsConfiguration.parse("apps:\n  chat:\n    clientTokens: { maxLifetime: 600 }\n") }
        #expect(throws: ConfigurationError.self) { try Self.apps(extra: "      maxLifetime: 59\n") }
        #expect(throws: ConfigurationError.self) { try Self.apps(extra: "      maxLifetime: 2592001\n") }
        #expect(try Self.apps().apps["chat"]?.clientTokens?.maxLifetime == 86_400)
    }

    @Test func claimsOutsideTheFastReadersSubsetAreReadByTheDecoder() throws {
        let fast = try ClientTokenClaims.read(ClientTokenClaims.self, Data(#"{"aud":["x","chat"],"exp":1700000000,"sub":"u","pushIds":["p"]}"#.utf8))
        let slow = try ClientTokenClaims.read(ClientTokenClaims.self, Data(#"{"aud":["x","chat"],"exp":1.7e9,"sub":"u","sub":"u","pushIds":["p"]}"#.utf8))
        for claims in [fast, slow] {
            #expect(claims.audiences == ["x", "chat"] && claims.expiresAt == 1_700_000_000 && claims.subject == "u" && claims.pushIds == ["p"])
        }
        #expect(throws: ClientTokenClaims.Unreadable(claim: "sub")) { try ClientTokenClaims.read(ClientTokenClaims.self, Data(#"{"aud":"chat","exp":1,"sub":7}"#.utf8)) }
        #expect(throws: ClientTokenClaims.Unreadable(claim: "")) { try ClientTokenClaims.read(ClientTokenClaims.self, Data("[1]".utf8)) }
    }

    @Test func aClientTokenCannotUseTheConsole() throws {
        let request = Gateway.Request(endpoint: .getUserPreferences, parameters: ["app": "chat", "userId": "u-1"], authorization: nil, body: Data(), viaConsole: true)
        #expect(throws: GatewayError.self) { try Gateway.admit(ClientIdentity(userId: "u-1"), to: request, route: Endpoint.getUserPreferences.route) }
        var direct = request
        direct.viaConsole = false
        try Gateway.admit(ClientIdentity(userId: "u-1"), to: direct, route: Endpoint.getUserPreferences.route)
    }
}
