import Crypto
import _CryptoExtras
import Foundation
import HeraldCrypto
import HeraldTestSupport
import Testing

struct JWETests {
    nonisolated(unsafe) static let key2048 = TestKeys.encryptionKey(TestKeys.rsa2048)
    nonisolated(unsafe) static let key4096 = TestKeys.encryptionKey(TestKeys.rsa4096)

    @Test(arguments: [2048, 4096])
    func aPlaintextRoundTripsAndTheHeaderNamesTheAlgorithmsAndKeyId(bits: Int) throws {
        let privateKey = bits == 2048 ? Self.key2048 : Self.key4096
        let key = try RSAEncryptionKey(privateKey.publicKey.pemRepresentation)
        let plaintext = Data(#"{"subject":"Hello"}"#.utf8)
        let compact = try JWE.encrypt(plaintext, to: key, keyId: "addr-key-1")
        #expect(compact.split(separator: ".", omittingEmptySubsequences: false).count == 5)
        #expect(compact.count == JWE.compactSize(plaintextCount: plaintext.count, keyBits: bits, keyId: "addr-key-1"))
        let (header, decrypted) = try JWE.decrypt(compact, with: privateKey)
        #expect(header == JWE.Header(alg: "RSA-OAEP-256", enc: "A256GCM", kid: "addr-key-1"))
        #expect(decrypted == plaintext)
    }

    @Test(arguments: [1, 2, 3, 4])
    func aTamperedPartFailsToDecrypt(part: Int) throws {
        let key = try RSAEncryptionKey(Self.key2048.publicKey.pemRepresentation)
        var parts = try JWE.encrypt(Data("secret".utf8), to: key).split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        var bytes = Base64URL.decode(parts[part])!
        bytes[bytes.count / 2] ^= 0x80
        parts[part] = Base64URL.encode(bytes)
        #expect { try JWE.decrypt(parts.joined(separator: "."), with: Self.key2048) } throws: {
            ($0 as? HeraldCryptoError)?.reason == .decryptionFailed || ($0 as? HeraldCryptoError)?.reason == .malformedMessage
        }
    }

    @Test func aTamperedHeaderFailsBecauseItIsAuthenticated() throws {
        let key = try RSAEncryptionKey(Self.key2048.publicKey.pemRepresentation)
        var parts = try JWE.encrypt(Data("secret".utf8), to: key, keyId: "a").split(separator: ".").map(String.init)
        parts[0] = Base64URL.encode(Data(#"{"alg":"RSA-OAEP-256","enc":"A256GCM","kid":"b"}"#.utf8))
        #expect { try JWE.decrypt(parts.joined(separator: "."), with: Self.key2048) } throws: {
            ($0 as? HeraldCryptoError)?.reason == .decryptionFailed
        }
    }

    @Test func anotherPrivateKeyFailsToDecrypt() throws {
        let key = try RSAEncryptionKey(Self.key2048.publicKey.pemRepresentation)
        let compact = try JWE.encrypt(Data("secret".utf8), to: key)
        #expect { try JWE.decrypt(compact, with: Self.key4096) } throws: {
            ($0 as? HeraldCryptoError)?.reason == .decryptionFailed
        }
    }

    @Test func anotherAlgorithmIsRefused() throws {
        let header = Base64URL.encode(Data(#"{"alg":"RSA1_5","enc":"A128CBC-HS256"}"#.utf8))
        #expect { try JWE.decrypt("\(header).a.b.c.d", with: Self.key2048) } throws: {
            ($0 as? HeraldCryptoError)?.reason == .malformedMessage && "\($0)".contains("RSA1_5")
        }
    }
}
