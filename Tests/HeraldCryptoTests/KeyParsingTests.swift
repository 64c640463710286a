import Crypto
import _CryptoExtras
import Foundation
import HeraldCrypto
import HeraldTestSupport
import Testing

struct KeyParsingTests {
    static let auth = Base64URL.encode(Data(repeating: 1, count: 16))

    @Test func anUncompressedPointACompressedPointAndSPKIAllGiveTheSameKey() throws {
        let key = P256.KeyAgreement.PrivateKey().publicKey
        for text in [key.x963Representation, key.compressedRepresentation, key.derRepresentation].map(Base64URL.encode) {
            #expect(try WebPushKey(p256dh: text, auth: Self.auth).publicKeyBytes == key.x963Representation)
        }
    }

    /// A key text that must be refused, with the reason and a word its message must contain.
    struct BadKey: Sendable, CustomTestStringConvertible {
        var name: String
        var text: String
        var reason: HeraldCryptoError.Reason
        var mentions: String
        var testDescription: String { name }
    }

    static let badKeys: [BadKey] = [
        BadKey(name: "not base64", text: "not*base64!", reason: .invalidEncoding, mentions: "base64url"),
        BadKey(name: "P-384 point", text: Base64URL.encode(P384.KeyAgreement.PrivateKey().publicKey.x963Representation), reason: .wrongCurve, mentions: "P-384"),
        BadKey(name: "P-521 point", text: Base64URL.encode(P521.KeyAgreement.PrivateKey().publicKey.x963Representation), reason: .wrongCurve, mentions: "P-521"),
        BadKey(name: "P-384 SPKI", text: Base64URL.encode(P384.KeyAgreement.PrivateKey().publicKey.derRepresentation), reason: .wrongCurve, mentions: "P-384"),
        BadKey(name: "private scalar", text: Base64URL.encode(P256.KeyAgreement.PrivateKey().rawRepresentation), reason: .wrongLength, mentions: "private key"),
        BadKey(name: "private key DER", text: Base64URL.encode(P256.KeyAgreement.PrivateKey().derRepresentation), reason: .notAPublicKey, mentions: "private key"),
        BadKey(name: "point off the curve", text: Base64URL.encode(Data([4] + [UInt8](repeating: 9, count: 64))), reason: .invalidPoint, mentions: "not a point"),
        BadKey(name: "too short", text: Base64URL.encode(Data(repeating: 4, count: 40)), reason: .wrongLength, mentions: "40 bytes"),
    ]

    @Test(arguments: badKeys)
    func aBadDeviceKeyIsRefusedWithItsReason(_ bad: BadKey) {
        #expect {
            try WebPushKey(p256dh: bad.text, auth: Self.auth)
        } throws: { error in
            guard let error = error as? HeraldCryptoError else { return false }
            return error.reason == bad.reason && error.field == "p256dh" && error.message.contains(bad.mentions)
        }
    }

    @Test(arguments: [0, 15, 17, 32])
    func anAuthSecretOfOtherThan16BytesIsRefused(length: Int) {
        let key = Base64URL.encode(P256.KeyAgreement.PrivateKey().publicKey.x963Representation)
        #expect {
            try WebPushKey(p256dh: key, auth: Base64URL.encode(Data(repeating: 2, count: length)))
        } throws: { error in
            let error = error as? HeraldCryptoError
            return error?.field == "auth" && (error?.reason == .wrongLength || error?.reason == .invalidEncoding)
        }
    }

    nonisolated(unsafe) static let rsa2048 = TestKeys.encryptionKey(TestKeys.rsa2048)

    @Test func anRSAKeyIsAcceptedAsSPKIPEMPKCS1PEMAndBase64DER() throws {
        let publicKey = Self.rsa2048.publicKey
        for text in [publicKey.pemRepresentation, publicKey.pkcs1PEMRepresentation, publicKey.derRepresentation.base64EncodedString(), Base64URL.encode(publicKey.pkcs1DERRepresentation)] {
            let parsed = try RSAEncryptionKey(text)
            #expect(parsed.bits == 2048)
            #expect(parsed.spkiDER == publicKey.derRepresentation)
        }
    }

    static let badRSAKeys: [BadKey] = [
        BadKey(name: "1024 bits", text: try! _RSA.Encryption.PrivateKey(unsafeKeySize: .init(bitCount: 1024)).publicKey.pemRepresentation, reason: .unsupportedKeySize, mentions: "1024-bit"),
        BadKey(name: "private key PEM", text: rsa2048.pemRepresentation, reason: .notAPublicKey, mentions: "private key"),
        BadKey(name: "PKCS8 private key PEM", text: rsa2048.pkcs8PEMRepresentation, reason: .notAPublicKey, mentions: "private key"),
        BadKey(name: "private key DER", text: rsa2048.derRepresentation.base64EncodedString(), reason: .notAPublicKey, mentions: "private key"),
        BadKey(name: "EC key", text: P256.Signing.PrivateKey().publicKey.pemRepresentation, reason: .unsupportedKey, mentions: "elliptic-curve"),
        BadKey(name: "certificate", text: "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----", reason: .notAPublicKey, mentions: "certificate"),
        BadKey(name: "garbage", text: "hello, world", reason: .invalidEncoding, mentions: "PEM"),
        BadKey(name: "PEM without END", text: "-----BEGIN PUBLIC KEY-----\nMIIB", reason: .invalidEncoding, mentions: "END"),
    ]

    @Test(arguments: badRSAKeys)
    func aBadAddressKeyIsRefusedWithItsReason(_ bad: BadKey) {
        #expect {
            try RSAEncryptionKey(bad.text)
        } throws: { error in
            guard let error = error as? HeraldCryptoError else { return false }
            return error.reason == bad.reason && error.message.contains(bad.mentions)
        }
    }
}
