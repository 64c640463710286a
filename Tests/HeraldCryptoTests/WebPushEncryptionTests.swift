import Crypto
import Foundation
import HeraldCrypto
import Testing

struct WebPushEncryptionTests {
    struct Device {
        let privateKey = P256.KeyAgreement.PrivateKey()
        let auth = Data((0..<16).map { _ in UInt8.random(in: 0...255) })
        var key: WebPushKey { try! WebPushKey(publicKey: privateKey.publicKey, authSecret: auth) }
    }

    @Test(arguments: [0, 1, 100, 4096 - 17])
    func aPlaintextRoundTrips(length: Int) throws {
        let device = Device()
        let plaintext = Data((0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let body = try WebPushEncryption.encrypt(plaintext, to: device.key)
        #expect(body.count == WebPushEncryption.encryptedSize(plaintextCount: length))
        #expect(try WebPushEncryption.decrypt(body, privateKey: device.privateKey, authSecret: device.auth) == plaintext)
    }

    @Test func twoEncryptionsOfTheSamePlaintextDiffer() throws {
        let device = Device()
        let first = try WebPushEncryption.encrypt(Data("same".utf8), to: device.key)
        let second = try WebPushEncryption.encrypt(Data("same".utf8), to: device.key)
        #expect(first != second)
    }

    @Test(arguments: [WebPushEncryption.headerSize, WebPushEncryption.headerSize + 5, -1])
    func aTamperedByteFailsToDecrypt(offset: Int) throws {
        let device = Device()
        var body = try WebPushEncryption.encrypt(Data("attack at dawn".utf8), to: device.key)
        body[offset < 0 ? body.count - 1 : offset] ^= 0x01
        #expect { try WebPushEncryption.decrypt(body, privateKey: device.privateKey, authSecret: device.auth) } throws: {
            ($0 as? HeraldCryptoError)?.reason == .decryptionFailed
        }
    }

    @Test func anotherDevicesPrivateKeyFailsToDecrypt() throws {
        let device = Device()
        let body = try WebPushEncryption.encrypt(Data("for device one".utf8), to: device.key)
        #expect { try WebPushEncryption.decrypt(body, privateKey: P256.KeyAgreement.PrivateKey(), authSecret: device.auth) } throws: {
            ($0 as? HeraldCryptoError)?.reason == .decryptionFailed
        }
    }

    @Test func aWrongAuthSecretFailsToDecrypt() throws {
        let device = Device()
        let body = try WebPushEncryption.encrypt(Data("for device one".utf8), to: device.key)
        #expect { try WebPushEncryption.decrypt(body, privateKey: device.privateKey, authSecret: Data(repeating: 7, count: 16)) } throws: {
            ($0 as? HeraldCryptoError)?.reason == .decryptionFailed
        }
    }

    @Test func aPlaintextLargerThanOneRecordIsRefused() throws {
        let device = Device()
        #expect { try WebPushEncryption.encrypt(Data(count: 4096 - 16), to: device.key) } throws: {
            ($0 as? HeraldCryptoError)?.reason == .messageTooLarge
        }
    }

    @Test func aTruncatedBodyIsMalformed() throws {
        let device = Device()
        let body = try WebPushEncryption.encrypt(Data("x".utf8), to: device.key)
        #expect { try WebPushEncryption.decrypt(body.prefix(60), privateKey: device.privateKey, authSecret: device.auth) } throws: {
            ($0 as? HeraldCryptoError)?.reason == .malformedMessage
        }
    }
}
