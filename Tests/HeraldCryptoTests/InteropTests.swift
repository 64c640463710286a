import Crypto
import _CryptoExtras
import Foundation
import HeraldCrypto
import HeraldTestSupport
import Testing

/// Herald against independent implementations: Python's `http_ece` for RFC 8291 and
/// `joserfc` for JWE, both from PyPI (`Tests/Interop/requirements.txt`). The test command installs
/// them in `.build/python`; elsewhere set `HERALD_PYTHON` to a Python that has them.
@Suite(.needs(.python))
struct InteropTests {
    static let plaintext = Data(#"{"event":"e-1","herald":"1","kind":"email.received","subject":"Grüße — 🎉"}"#.utf8)

    @Test func aHeraldAes128gcmBodyDecryptsWithHttpEce() async throws {
        let privateKey = P256.KeyAgreement.PrivateKey()
        let auth = Data((0..<16).map { _ in UInt8.random(in: 0...255) })
        let body = try WebPushEncryption.encrypt(Self.plaintext, to: WebPushKey(publicKey: privateKey.publicKey, authSecret: auth))
        let reply = try await PythonInterop.run([
            "op": "ece-decrypt", "body": Base64URL.encode(body),
            "privateKey": Base64URL.encode(privateKey.rawRepresentation), "auth": Base64URL.encode(auth),
        ])
        #expect(Base64URL.decode(reply["plaintext"] as? String ?? "") == Self.plaintext)
    }

    @Test(arguments: [4096, 25])
    func anHttpEceBodyDecryptsWithHerald(recordSize: Int) async throws {
        let privateKey = P256.KeyAgreement.PrivateKey()
        let auth = Data((0..<16).map { _ in UInt8.random(in: 0...255) })
        let reply = try await PythonInterop.run([
            "op": "ece-encrypt", "plaintext": Base64URL.encode(Self.plaintext), "recordSize": recordSize,
            "publicKey": Base64URL.encode(privateKey.publicKey.x963Representation), "auth": Base64URL.encode(auth),
        ])
        let body = try #require(Base64URL.decode(reply["body"] as? String ?? ""))
        #expect(try WebPushEncryption.decrypt(body, privateKey: privateKey, authSecret: auth) == Self.plaintext)
    }

    nonisolated(unsafe) static let rsa = TestKeys.encryptionKey(TestKeys.rsa2048)

    @Test func aHeraldJWEDecryptsWithJoserfc() async throws {
        let compact = try JWE.encrypt(Self.plaintext, to: RSAEncryptionKey(Self.rsa.publicKey.pemRepresentation), keyId: "k-7")
        let reply = try await PythonInterop.run(["op": "jwe-decrypt", "compact": compact, "privateKeyPem": Self.rsa.pkcs8PEMRepresentation])
        #expect(Base64URL.decode(reply["plaintext"] as? String ?? "") == Self.plaintext)
        let header = reply["header"] as? [String: String]
        #expect(header == ["alg": "RSA-OAEP-256", "enc": "A256GCM", "kid": "k-7"])
    }

    @Test func aJoserfcJWEDecryptsWithHerald() async throws {
        let reply = try await PythonInterop.run([
            "op": "jwe-encrypt", "plaintext": Base64URL.encode(Self.plaintext), "kid": "k-8",
            "publicKeyPem": Self.rsa.publicKey.pemRepresentation,
        ])
        let (header, plaintext) = try JWE.decrypt(reply["compact"] as? String ?? "", with: Self.rsa)
        #expect(plaintext == Self.plaintext)
        #expect(header.kid == "k-8")
    }
}

/// Runs `Interop/interop.py` with one JSON request and returns its JSON reply.
enum PythonInterop {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Interop/interop.py").path

    static func run(_ request: [String: Any]) async throws -> [String: Any] {
        try await PythonChecker.run(script, request)
    }
}
