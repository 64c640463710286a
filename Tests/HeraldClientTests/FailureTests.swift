import Foundation
import HeraldClient
import HeraldCrypto
import HeraldModel
import HeraldTestSupport
import Testing

/// A wrong key or a tampered payload fails with a clear error (a `HeraldClientError` with its
/// reason), never a crash.
struct FailureTests {
    typealias S = ClientSamples

    /// A real encrypted push of the chat message, to the device key or the address key.
    static func encrypted(_ scheme: ClientScheme) throws -> [String: String] {
        let sample = S.cases.first { $0.name == (scheme == .jwe ? "Sudo email received" : "Upstra text message") }!
        return try RealPayloadTests.received(RealPayloadTests.delivery(sample, scheme, platform: .fcm)).data
    }

    static func expect(_ reason: HeraldClientError.Reason, field: String? = nil, keyring: HeraldKeyring = S.keyring, _ data: [String: String], sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            let opened = try HeraldNotificationDecoder(keyring: keyring).decode(data)
            Issue.record("opened instead of failing with \(reason): \(opened.kind)", sourceLocation: sourceLocation)
        } catch {
            #expect(error.reason == reason, "\(error)", sourceLocation: sourceLocation)
            if let field { #expect(error.field == field, "\(error)", sourceLocation: sourceLocation) }
            #expect(!error.message.isEmpty, sourceLocation: sourceLocation)
        }
    }

    @Test func aDeviceKeyOfTheSameIdButAnotherKeyFailsToDecrypt() throws {
        let other = HeraldKeyring(deviceKeys: [.generate(keyId: S.deviceKey.keyId)])
        Self.expect(.decryptionFailed, field: "payload", keyring: other, try Self.encrypted(.aes128gcm))
    }

    @Test func anAddressKeyOfTheSameIdButAnotherKeyFailsToDecrypt() throws {
        let other = HeraldKeyring(addressKeys: [try .generate(keyId: S.addressKey.keyId)])
        Self.expect(.decryptionFailed, field: "payload", keyring: other, try Self.encrypted(.jwe))
    }

    @Test(arguments: [ClientScheme.aes128gcm, .jwe])
    func aKeyIdTheKeyringLacksIsUnknown(_ scheme: ClientScheme) throws {
        Self.expect(.unknownKey, field: "kid", keyring: HeraldKeyring(), try Self.encrypted(scheme))
    }

    @Test func aDeviceKeyIsNotUsedForAnAddressesPayload() throws {
        var data = try Self.encrypted(.jwe)
        let deviceOnly = HeraldKeyring(deviceKeys: [DeviceKeyPair.generate(keyId: data["kid"]!)])
        Self.expect(.unknownKey, keyring: deviceOnly, data)
        data["enc"] = "aes128gcm"
        Self.expect(.malformedPayload, keyring: deviceOnly, data)
    }

    /// Flipping any one byte of an `aes128gcm` body (salt, record size, sender key,
    /// ciphertext, tag) fails, except in the record size: RFC 8188 does not authenticate it,
    /// and a larger one still reads the one record, to the very same notification.
    @Test func everyTamperedByteOfAnAES128GCMPayloadFailsOrOpensTheSameNotification() throws {
        let data = try Self.encrypted(.aes128gcm)
        let original = try HeraldNotificationDecoder(keyring: S.keyring).decode(data)
        let body = try #require(Base64URL.decode(data["payload"]!))
        var failed = 0
        for index in body.indices {
            var tampered = body
            tampered[index] ^= 0x01
            var map = data
            map["payload"] = Base64URL.encode(tampered)
            do {
                let opened = try HeraldNotificationDecoder(keyring: S.keyring).decode(map)
                #expect((16..<20).contains(index), "byte \(index) flipped and the payload still opened")
                #expect(opened == original, "byte \(index) of the record size flipped gave another notification")
            } catch {
                failed += 1
                #expect([.decryptionFailed, .malformedPayload].contains(error.reason), "byte \(index): \(error)")
            }
        }
        #expect(failed >= body.count - 4)
    }

    /// Flipping a character of each of the five JWE parts.
    @Test func everyTamperedPartOfAJWEPayloadFails() throws {
        let data = try Self.encrypted(.jwe)
        let parts = data["payload"]!.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        #expect(parts.count == 5)
        for index in parts.indices {
            var bytes = try #require(Base64URL.decode(parts[index]))
            bytes[bytes.startIndex] ^= 0x01
            var tampered = parts
            tampered[index] = Base64URL.encode(bytes)
            var map = data
            map["payload"] = tampered.joined(separator: ".")
            do {
                _ = try HeraldNotificationDecoder(keyring: S.keyring).decode(map)
                Issue.record("part \(index) tampered and the payload still opened")
            } catch {
                #expect([.decryptionFailed, .malformedPayload].contains(error.reason), "part \(index): \(error)")
            }
        }
    }

    @Test func aJWEWhoseHeaderNamesAnotherKeyThanTheMapIsRefused() throws {
        var data = try Self.encrypted(.jwe)
        let renamed = AddressKeyPair(keyId: "renamed", key: S.addressKey.key)
        data["kid"] = "renamed"
        Self.expect(.malformedPayload, field: "kid", keyring: HeraldKeyring(addressKeys: [renamed]), data)
    }

    /// Damaged forms of `payload`: empty, not base64url, truncated, extended, 300 random
    /// mutations of one to five characters, and 200 random bytes.
    static func damaged(_ payload: String, _ random: inout SeededRandom) -> [String] {
        let alphabet = Array("AZaz09-_.")
        var damaged = ["", "!!!", "A", String(payload.prefix(payload.count / 2)), String(payload.dropLast()), payload + "A", payload + ".x"]
        for _ in 0..<300 {
            var characters = Array(payload)
            for _ in 0...random.next(upTo: 4) {
                characters[random.next(upTo: characters.count)] = alphabet[random.next(upTo: alphabet.count)]
            }
            damaged.append(String(characters))
        }
        damaged.append(Base64URL.encode(Data((0..<200).map { _ in UInt8(random.next(upTo: 256)) })))
        return damaged
    }

    /// Truncated, empty, not base64url, random bytes, and random mutations of a real payload:
    /// each one a `HeraldClientError`, never a trap, and never another notification (a
    /// mutation may leave the decoded bytes as they were: base64url's unused low bits, or a
    /// larger record size). Seeded, so a failure repeats.
    @Test func damagedPayloadsAreErrorsNeverCrashesNorAnotherNotification() throws {
        var random = SeededRandom(seed: 2026_11_25)
        for scheme in [ClientScheme.aes128gcm, .jwe] {
            let data = try Self.encrypted(scheme)
            let original = try HeraldNotificationDecoder(keyring: S.keyring).decode(data)
            let payload = data["payload"]!
            let damaged = Self.damaged(payload, &random)
            var failed = 0
            for text in damaged where text != payload {
                var map = data
                map["payload"] = text
                do {
                    let opened = try HeraldNotificationDecoder(keyring: S.keyring).decode(map)
                    #expect(opened == original, "a damaged \(scheme) payload opened to another notification")
                } catch {
                    failed += 1
                    // An empty payload is a missing one.
                    #expect([.decryptionFailed, .malformedPayload].contains(error.reason) || (text.isEmpty && error.reason == .missingField), "\(error)")
                }
            }
            #expect(failed > damaged.count * 9 / 10, "most damage is detected: \(failed) of \(damaged.count)")
        }
    }

    @Test func anUnknownSchemeIsRefused() throws {
        var data = try Self.encrypted(.aes128gcm)
        data["enc"] = "aesgcm"
        Self.expect(.unsupportedScheme, field: "enc", data)
    }

    @Test func aPlainMapWithoutItsEventIdIsMissingAField() {
        Self.expect(.missingField, field: "event", ["herald": "1", "kind": "auth", "messageId": "m"].merging(["event": ""]) { $1 })
    }

    @Test func aKnownKindWithoutItsIdentifyingFieldIsMissingThatField() {
        Self.expect(.missingField, field: "messageId", ["herald": "1", "event": "smartid:1", "kind": "auth", "requestor": "Bank"])
        Self.expect(.missingField, field: "path", ["herald": "1", "event": "webcom:1", "kind": "value.changed", "value": "1"])
    }

    @Test func anUnknownVariantIsRefused() {
        Self.expect(.malformedPayload, field: "variant", ["herald": "1", "event": "webcom:1", "kind": "value.changed", "path": "/a", "variant": "tiny"])
        Self.expect(.malformedPayload, field: "variant", ["herald": "1", "event": "webcom:1", "kind": "value.changed", "path": "/a", "variant": "onlyKeys"])
    }

    @Test func onlyKeysThatAreNotAnArrayOfStringsAreRefused() {
        Self.expect(.malformedPayload, field: "added", [
            "herald": "1", "event": "webcom:1", "kind": "children.updated", "path": "/a", "variant": "onlyKeys", "added": #"{"k":1}"#,
        ])
    }

    /// Encrypted JSON that is not Herald's map: not an object, a non-string value, an alert
    /// that is not an object of strings, another inner version.
    @Test(arguments: [#"[1,2]"#, #"{"herald":"1","event":"e","kind":"k","n":1}"#, #"{"herald":"1","event":"e","kind":"k","alert":"hi"}"#, #"{"herald":"9","event":"e","kind":"k"}"#, "not json"])
    func encryptedTextThatIsNotHeraldsMapIsRefused(_ plaintext: String) throws {
        let payload = try WebPushEncryption.encrypt(Data(plaintext.utf8), to: S.deviceKey.key.publicKey)
        let data = ["herald": "1", "enc": "aes128gcm", "kid": S.deviceKey.keyId, "payload": Base64URL.encode(payload)]
        do {
            _ = try HeraldNotificationDecoder(keyring: S.keyring).decode(data)
            Issue.record("opened")
        } catch {
            #expect([.malformedPayload, .unsupportedVersion].contains(error.reason), "\(error)")
        }
    }
}
