import Foundation
import HeraldClient
import HeraldCrypto
import Testing

/// The keys the kit generates are registered exactly as the registration API takes them, and
/// what Herald encrypts to them the kit decrypts.
struct KeyGenerationTests {
    @Test func aGeneratedDeviceKeyIsRegisteredAsTheUncompressedPointAndA16ByteSecret() throws {
        let key = DeviceKeyPair.generate(keyId: "k-1")
        let registration = key.registration
        let point = try #require(Base64URL.decode(registration.p256dh))
        #expect(point.count == 65 && point.first == 0x04)
        #expect(Base64URL.decode(registration.auth)?.count == 16)
        #expect(!registration.p256dh.contains("=") && !registration.auth.contains("="), "base64url without padding")
        // What Registration checks a registered key with.
        let parsed = try WebPushKey(p256dh: registration.p256dh, auth: registration.auth)
        #expect(parsed.publicKeyBytes == point)
        let body = try WebPushEncryption.encrypt(Data("hello".utf8), to: parsed)
        #expect(try key.key.decrypt(body) == Data("hello".utf8))
    }

    @Test func theRegistrationIsTheJSONTheAPITakes() throws {
        let key = DeviceKeyPair.generate(keyId: "k-1")
        let json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(key.registration)) as? [String: String]
        #expect(Set(json.map { Array($0.keys) } ?? []) == ["keyId", "p256dh", "auth"])
        let address = try AddressKeyPair.generate(keyId: "a-1")
        let addressJSON = try JSONSerialization.jsonObject(with: JSONEncoder().encode(address.registration)) as? [String: String]
        #expect(Set(addressJSON.map { Array($0.keys) } ?? []) == ["keyId", "publicKey"])
    }

    @Test func twoGeneratedDeviceKeysDiffer() {
        let first = DeviceKeyPair.generate(keyId: "k"), second = DeviceKeyPair.generate(keyId: "k")
        #expect(first.registration.p256dh != second.registration.p256dh)
        #expect(first.registration.auth != second.registration.auth)
    }

    @Test(arguments: [2048, 3072])
    func aGeneratedAddressKeyIsRegisteredAsSPKIPEM(bits: Int) throws {
        let key = try AddressKeyPair.generate(keyId: "a-1", bits: bits)
        let pem = key.registration.publicKey
        #expect(pem.hasPrefix("-----BEGIN PUBLIC KEY-----\n") && pem.hasSuffix("-----END PUBLIC KEY-----"))
        // What Registration checks a registered address key with.
        let parsed = try RSAEncryptionKey(pem)
        #expect(parsed.bits == bits)
        let compact = try JWE.encrypt(Data("hello".utf8), to: parsed, keyId: "a-1")
        #expect(try key.key.decrypt(compact).plaintext == Data("hello".utf8))
    }

    @Test(arguments: [1024, 2047, 4104, 8192])
    func anAddressKeySizeHeraldDoesNotTakeIsRefused(bits: Int) {
        #expect {
            try AddressKeyPair.generate(keyId: "a", bits: bits)
        } throws: { error in
            (error as? HeraldClientError)?.reason == .invalidKey
        }
    }

    /// Stored as JSON (for the keychain) and read back, a key still opens its pushes.
    @Test func storedKeysReadBackTheSameKeys() throws {
        let device = DeviceKeyPair.generate(keyId: "k-1")
        let address = try AddressKeyPair.generate(keyId: "a-1")
        let storedDevice = try JSONDecoder().decode(DeviceKeyPair.self, from: JSONEncoder().encode(device))
        let storedAddress = try JSONDecoder().decode(AddressKeyPair.self, from: JSONEncoder().encode(address))
        #expect(storedDevice.keyId == "k-1" && storedDevice.registration == device.registration)
        #expect(storedAddress.keyId == "a-1" && storedAddress.registration == address.registration)
        let body = try WebPushEncryption.encrypt(Data("x".utf8), to: device.key.publicKey)
        #expect(try storedDevice.key.decrypt(body) == Data("x".utf8))
        let compact = try JWE.encrypt(Data("y".utf8), to: RSAEncryptionKey(address.registration.publicKey), keyId: "a-1")
        #expect(try storedAddress.key.decrypt(compact).plaintext == Data("y".utf8))
    }

    @Test func aStoredKeyThatIsNotAKeyIsAnInvalidKeyError() {
        #expect {
            try DeviceKeyPair(keyId: "k", privateKey: Data(repeating: 0, count: 32), authSecret: Data(count: 16))
        } throws: { error in
            (error as? HeraldClientError)?.reason == .invalidKey
        }
        #expect {
            try DeviceKeyPair(keyId: "k", privateKey: DeviceKeyPair.generate(keyId: "k").key.rawPrivateKey, authSecret: Data(count: 15))
        } throws: { error in
            (error as? HeraldClientError)?.reason == .invalidKey && (error as? HeraldClientError)?.field == "auth"
        }
        #expect {
            try AddressKeyPair(keyId: "a", privateKeyPEM: "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----")
        } throws: { error in
            (error as? HeraldClientError)?.reason == .invalidKey
        }
    }
}
