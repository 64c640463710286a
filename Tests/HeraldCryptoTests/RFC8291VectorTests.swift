import Crypto
import Foundation
import HeraldCrypto
import Testing

/// RFC 8291 Appendix A, reproduced from the published values.
struct RFC8291VectorTests {
    struct Vector: Decodable {
        var plaintext, as_public, as_private, ua_public, ua_private, salt, auth_secret, body: String
        var record_size: Int
    }

    static let vector: Vector = {
        let url = Bundle.module.url(forResource: "rfc8291-vector", withExtension: "json", subdirectory: "Fixtures")!
        return try! JSONDecoder().decode(Vector.self, from: Data(contentsOf: url))
    }()

    static func bytes(_ text: String) -> Data { Base64URL.decode(text)! }

    @Test func encryptionWithTheExampleKeysAndSaltGivesTheExampleBodyByteForByte() throws {
        let v = Self.vector
        let key = try WebPushKey(p256dh: v.ua_public, auth: v.auth_secret)
        let sender = try P256.KeyAgreement.PrivateKey(rawRepresentation: Self.bytes(v.as_private))
        #expect(sender.publicKey.x963Representation == Self.bytes(v.as_public))
        let body = try WebPushEncryption.encrypt(
            Self.bytes(v.plaintext), to: key, recordSize: v.record_size, salt: Self.bytes(v.salt), senderKey: sender)
        #expect(Base64URL.encode(body) == v.body)
        #expect(body.count == WebPushEncryption.encryptedSize(plaintextCount: Self.bytes(v.plaintext).count))
    }

    @Test func theExampleBodyDecryptsWithTheUserAgentKey() throws {
        let v = Self.vector
        let receiver = try P256.KeyAgreement.PrivateKey(rawRepresentation: Self.bytes(v.ua_private))
        let plaintext = try WebPushEncryption.decrypt(Self.bytes(v.body), privateKey: receiver, authSecret: Self.bytes(v.auth_secret))
        #expect(String(decoding: plaintext, as: UTF8.self) == "When I grow up, I want to be a watermelon")
    }
}
