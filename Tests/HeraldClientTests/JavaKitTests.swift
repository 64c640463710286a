import Foundation
import HeraldClient
import HeraldCrypto
import HeraldModel
import HeraldTestSupport
import Testing

/// The Java kit (`Client/android`) against the Swift kit: it opens the very payloads the
/// encryption service builds (the cases of `RealPayloadTests`, 76 today, made here by the service's
/// own code, not copied), and on every damaged or mismatched push of `FailureTests` it fails
/// with the same reason and field as the Swift kit, or opens the same notification. Java's
/// answers are read back into the Swift kit's types, so agreeing is `==` field by field.
@Suite(.needs(.java))
struct JavaKitTests {
    typealias S = ClientSamples

    @Test func theJavaKitOpensEveryRealPayloadToTheSwiftKitsNotification() async throws {
        let cases = RealPayloadTests.arguments
        #expect(cases.count >= 72, "every integration, variant and scheme, over FCM and Push Kit")
        var pushes: [JavaKit.Push] = []
        var expected: [HeraldNotification] = []
        for (sample, scheme, platform) in cases {
            let received = try RealPayloadTests.received(RealPayloadTests.delivery(sample, scheme, platform: platform))
            if platform == .hms {
                // Push Kit hands the app one JSON string: the Java kit reads that string itself.
                pushes.append(.pushKitData(try #require(received.message["data"] as? String)))
            } else {
                pushes.append(.data(received.data))
            }
            let swift = try HeraldNotificationDecoder(keyring: S.keyring).decode(received.data)
            #expect(swift.event == sample.event && swift.variant == sample.variant, "\(sample.name)")
            expected.append(swift)
        }
        let opened = try await JavaKit.open(pushes, deviceKeys: [try JavaKit.stored(S.deviceKey)], addressKeys: [JavaKit.stored(S.addressKey)])
        for (index, (sample, scheme, platform)) in cases.enumerated() {
            #expect(opened[index] == .notification(expected[index]), "\(sample.name), \(scheme), \(platform): Java \(opened[index]), Swift \(expected[index].event)")
        }
    }

    /// Every damaged or mismatched push of FailureTests, each with its keyring.
    static func failureCases() throws -> [(name: String, devices: [DeviceKeyPair], addresses: [AddressKeyPair], data: [String: String])] {
        let device = try FailureTests.encrypted(.aes128gcm)
        let address = try FailureTests.encrypted(.jwe)
        let full = ([S.deviceKey], [S.addressKey])
        var cases: [(name: String, devices: [DeviceKeyPair], addresses: [AddressKeyPair], data: [String: String])] = []
        func add(_ name: String, _ data: [String: String], keys: ([DeviceKeyPair], [AddressKeyPair]) = full) {
            cases.append((name, keys.0, keys.1, data))
        }
        func with(_ data: [String: String], _ key: String, _ value: String) -> [String: String] {
            var map = data
            map[key] = value
            return map
        }
        add("another device key of the same id", device, keys: ([DeviceKeyPair.generate(keyId: S.deviceKey.keyId)], []))
        add("another address key of the same id", address, keys: ([], [try AddressKeyPair.generate(keyId: S.addressKey.keyId)]))
        add("no device key", device, keys: ([], []))
        add("no address key", address, keys: ([], []))
        let deviceOnly = ([DeviceKeyPair.generate(keyId: address["kid"]!)], [AddressKeyPair]())
        add("a device key for an address's payload", address, keys: deviceOnly)
        add("an address's payload called aes128gcm", with(address, "enc", "aes128gcm"), keys: deviceOnly)
        add("a JWE header naming another key", with(address, "kid", "renamed"), keys: ([], [AddressKeyPair(keyId: "renamed", key: S.addressKey.key)]))
        let body = try #require(Base64URL.decode(device["payload"]!))
        for index in body.indices {
            var tampered = body
            tampered[index] ^= 0x01
            add("aes128gcm byte \(index) flipped", with(device, "payload", Base64URL.encode(tampered)))
        }
        let parts = address["payload"]!.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        for index in parts.indices {
            var bytes = try #require(Base64URL.decode(parts[index]))
            bytes[bytes.startIndex] ^= 0x01
            var tampered = parts
            tampered[index] = Base64URL.encode(bytes)
            add("JWE part \(index) tampered", with(address, "payload", tampered.joined(separator: ".")))
        }
        var random = SeededRandom(seed: 2026_11_25)
        for (scheme, data) in [("aes128gcm", device), ("jwe", address)] {
            let damaged = FailureTests.damaged(data["payload"]!, &random)
            for (index, text) in damaged.enumerated() { add("\(scheme) damaged \(index)", with(data, "payload", text)) }
        }
        add("an unknown scheme", with(device, "enc", "aesgcm"))
        add("a plain map without its event id", ["herald": "1", "kind": "auth", "messageId": "m", "event": ""])
        add("auth without messageId", ["herald": "1", "event": "smartid:1", "kind": "auth", "requestor": "Bank"])
        add("value.changed without path", ["herald": "1", "event": "webcom:1", "kind": "value.changed", "value": "1"])
        add("an unknown variant", ["herald": "1", "event": "webcom:1", "kind": "value.changed", "path": "/a", "variant": "tiny"])
        add("onlyKeys on value.changed", ["herald": "1", "event": "webcom:1", "kind": "value.changed", "path": "/a", "variant": "onlyKeys"])
        add("onlyKeys that are not an array of strings", [
            "herald": "1", "event": "webcom:1", "kind": "children.updated", "path": "/a", "variant": "onlyKeys", "added": #"{"k":1}"#,
        ])
        for (index, plaintext) in [#"[1,2]"#, #"{"herald":"1","event":"e","kind":"k","n":1}"#, #"{"herald":"1","event":"e","kind":"k","alert":"hi"}"#,
                                   #"{"herald":"9","event":"e","kind":"k"}"#, "not json", "{\"herald\":\"1\",\"event\":\"e\",\"kind\":\"k\",\"x\":\"\u{FF}\"}"].enumerated() {
            let payload = try WebPushEncryption.encrypt(Data(plaintext.utf8), to: S.deviceKey.key.publicKey)
            add("encrypted text that is not Herald's map \(index)", ["herald": "1", "enc": "aes128gcm", "kid": S.deviceKey.keyId, "payload": Base64URL.encode(payload)])
        }
        var invalidUTF8 = Data(#"{"herald":"1","event":"e","kind":"k","x":""#.utf8)
        invalidUTF8.append(contentsOf: [0xC3, 0x28])
        invalidUTF8.append(contentsOf: Data(#""}"#.utf8))
        add("encrypted bytes that are not UTF-8", [
            "herald": "1", "enc": "aes128gcm", "kid": S.deviceKey.keyId,
            "payload": Base64URL.encode(try WebPushEncryption.encrypt(invalidUTF8, to: S.deviceKey.key.publicKey)),
        ])
        for data in ForeignPushTests.foreign where data["herald"] == nil { add("a foreign push", data) }
        add("a later format version", ["herald": "2", "event": "e", "kind": "k"])
        return cases
    }

    @Test func onEveryDamagedOrMismatchedPushTheJavaKitFailsAsTheSwiftKitDoes() async throws {
        let cases = try Self.failureCases()
        #expect(cases.count > 900, "916 today")
        // One Java run per keyring: the cases grouped by theirs.
        var groups: [String: [Int]] = [:]
        for (index, item) in cases.enumerated() {
            let name = (item.devices.map { $0.keyId + $0.registration.p256dh } + item.addresses.map { $0.keyId + $0.registration.publicKey }).joined(separator: "|")
            groups[name, default: []].append(index)
        }
        var failed = 0
        for indices in groups.values {
            let first = cases[indices[0]]
            let opened = try await JavaKit.open(
                indices.map { .data(cases[$0].data) }, deviceKeys: try first.devices.map(JavaKit.stored), addressKeys: first.addresses.map(JavaKit.stored))
            for (position, index) in indices.enumerated() {
                let item = cases[index]
                let swift = JavaKit.swiftOpened(item.data, keyring: HeraldKeyring(deviceKeys: item.devices, addressKeys: item.addresses))
                if case .failure = swift { failed += 1 }
                #expect(opened[position] == swift, "\(item.name): Java \(opened[position]), Swift \(swift)")
            }
        }
        #expect(failed > cases.count * 9 / 10, "most of the cases fail: \(failed) of \(cases.count)")
    }
}
