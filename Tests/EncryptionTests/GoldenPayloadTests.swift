import Foundation
import HeraldCrypto
import HeraldModel
import HeraldProviders
import HeraldSources
import HeraldTestSupport
import Encryption
import FCM
import HMS
import Testing

/// The final provider request of each integration, plain and encrypted, for FCM and Push
/// Kit, pinned by fixtures in `Fixtures/payloads`. Encrypted payloads differ on every run,
/// so the fixture shows their length, and the plaintext they decrypt to.
/// Regenerate deliberately with `HERALD_RECORD_FIXTURES=1 swift test --filter GoldenPayloadTests`.
struct GoldenPayloadTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var fcm: Delivery
        var hms: Delivery
        var testDescription: String { name }
    }

    static let cases: [Case] = {
        typealias S = PayloadSamples
        return [
            Case(name: "smartid-auth", fcm: S.smartIDAuth(S.device(.fcm, os: .android)), hms: S.smartIDAuth(S.device(.hms, os: .android))),
            Case(name: "smartid-auth-encrypted", fcm: S.smartIDAuth(S.device(.fcm, os: .ios, key: S.deviceKey)), hms: S.smartIDAuth(S.device(.hms, os: .android, key: S.deviceKey))),
            Case(name: "evernym-message", fcm: S.evernymMessage(S.device(.fcm, os: .android, key: S.deviceKey)), hms: S.evernymMessage(S.device(.hms, os: .android))),
            Case(name: "evernym-message-encrypted", fcm: S.encrypted(S.evernymMessage(S.device(.fcm, os: .ios, key: S.deviceKey))), hms: S.encrypted(S.evernymMessage(S.device(.hms, os: .android, key: S.deviceKey)))),
            Case(name: "upstra-message", fcm: S.upstraMessage(S.device(.fcm, os: .ios)), hms: S.upstraMessage(S.device(.hms, os: .android))),
            Case(name: "upstra-message-encrypted", fcm: S.upstraMessage(S.device(.fcm, os: .android, key: S.deviceKey)), hms: S.upstraMessage(S.device(.hms, os: .android, key: S.deviceKey))),
            Case(name: "sudo-email-plain", fcm: S.plain(S.sudoEmail(S.device(.fcm, os: .android))), hms: S.plain(S.sudoEmail(S.device(.hms, os: .android)))),
            Case(name: "sudo-email-encrypted", fcm: S.sudoEmail(S.device(.fcm, os: .ios)), hms: S.sudoEmail(S.device(.hms, os: .android))),
            Case(name: "webcom-children-updated", fcm: S.webcomChildren(S.device(.fcm, os: .android)), hms: S.webcomChildren(S.device(.hms, os: .android))),
            Case(name: "webcom-children-updated-encrypted", fcm: S.encrypted(S.webcomChildren(S.device(.fcm, os: .android, key: S.deviceKey))), hms: S.encrypted(S.webcomChildren(S.device(.hms, os: .android, key: S.deviceKey)))),
            Case(name: "webcom-value-hidden", fcm: S.webcomValue(S.device(.fcm, os: .android), hideData: true), hms: S.webcomValue(S.device(.hms, os: .android), hideData: true)),
        ]
    }()

    @Test(arguments: cases)
    func theFinalPayloadMatchesItsFixture(_ sample: Case) throws {
        let builder = PayloadBuilder(providers: .herald, sources: .herald)
        var fixture: [String: Any] = [:]
        var plaintexts: [Data] = []
        for (platform, delivery) in [("fcm", sample.fcm), ("hms", sample.hms)] {
            let decision = builder.build(delivery, now: PayloadSamples.now)
            if case .failed(let failure) = decision {
                fixture[platform] = ["outcome": "failed", "reason": failure.message]
                continue
            }
            guard case .dispatch(let request, let variant, let scheme) = decision else {
                Issue.record("\(sample.name) \(platform): \(decision)")
                return
            }
            var data = request.data
            if let scheme, let payload = data["payload"] {
                plaintexts.append(try Self.decrypt(payload, scheme: scheme))
                data["payload"] = "<\(scheme): \(payload.count) characters>"
            }
            var shown = request
            shown.data = data
            let body = platform == "fcm"
                ? try FCMMessage(shown, now: PayloadSamples.now).requestBody()
                : try HMSMessage(shown, now: PayloadSamples.now).requestBody()
            fixture[platform] = try JSONSerialization.jsonObject(with: body)
            fixture["variant"] = variant.rawValue
            fixture["scheme"] = scheme ?? "none"
        }
        if let first = plaintexts.first {
            #expect(plaintexts.allSatisfy { $0 == first }, "FCM and HMS encrypt the same plaintext")
            fixture["plaintext"] = try JSONSerialization.jsonObject(with: first)
        }
        let encoded = try JSONSerialization.data(withJSONObject: fixture, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]) + Data("\n".utf8)
        let name = "\(sample.name).json"
        let expected = try #require(try GoldenFixture.expected(encoded, name: name, subdirectory: "Fixtures/payloads", bundle: .module), "missing fixture \(name)")
        #expect(String(decoding: encoded, as: UTF8.self) == String(decoding: expected, as: UTF8.self), "\(name) no longer matches")
    }

    static func decrypt(_ payload: String, scheme: String) throws -> Data {
        switch scheme {
        case WebPushEncryption.scheme:
            return try WebPushEncryption.decrypt(try #require(Base64URL.decode(payload)), privateKey: PayloadSamples.devicePrivateKey, authSecret: PayloadSamples.deviceAuth)
        case JWE.scheme:
            return try JWE.decrypt(payload, with: PayloadSamples.addressPrivateKey).plaintext
        default:
            throw TestError("unknown scheme \(scheme)")
        }
    }
}

struct TestError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
