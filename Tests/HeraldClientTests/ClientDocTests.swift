import Crypto
import _CryptoExtras
import Foundation
import HeraldClient
import HeraldCrypto
import HeraldTestSupport
import Testing

/// `docs/client.md` is the contract a Kotlin developer implements from: its worked examples
/// are read from the page itself, the kit opens the exact maps printed there, every
/// intermediate value is recomputed by the page's own formulas, and independent
/// implementations decrypt the same bytes.
struct ClientDocTests {
    /// The worked examples of `docs/client.md`.
    struct Page {
        let text: String

        static func load() throws -> Page {
            let url = PythonChecker.packageRoot.appendingPathComponent("docs/client.md")
            return Page(text: try String(contentsOf: url, encoding: .utf8))
        }

        /// The fenced block right after `<!-- example: name -->`.
        func block(_ name: String) throws -> String {
            guard let marker = text.range(of: "<!-- example: \(name) -->\n") else { throw KitTestError("no example \(name) in docs/client.md") }
            let rest = text[marker.upperBound...]
            guard rest.hasPrefix("```"), let open = rest.firstIndex(of: "\n"),
                  let close = rest[open...].range(of: "\n```") else { throw KitTestError("example \(name) is not followed by a fenced block") }
            return String(rest[rest.index(after: open)..<close.lowerBound])
        }

        /// The `name = value` lines of a block.
        func values(_ name: String) throws -> [String: String] {
            var values: [String: String] = [:]
            for line in try block(name).split(separator: "\n") {
                let parts = line.split(separator: "=", maxSplits: 1)
                guard parts.count == 2 else { continue }
                values[parts[0].trimmingCharacters(in: .whitespaces)] = parts[1].trimmingCharacters(in: .whitespaces)
            }
            return values
        }

        /// A data map printed as JSON.
        func dataMap(_ name: String) throws -> [String: String] {
            try #require(try JSONSerialization.jsonObject(with: Data(block(name).utf8)) as? [String: String])
        }
    }

    static func hex(_ bytes: some DataProtocol) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    static func hmac(key: some DataProtocol, _ message: some DataProtocol) -> Data {
        Data(HMAC<SHA256>.authenticationCode(for: Data(message), using: SymmetricKey(data: Data(key))))
    }

    // MARK: aes128gcm

    static func deviceKey(_ page: Page) throws -> DeviceKeyPair {
        let keys = try page.values("aes128gcm keys")
        return try DeviceKeyPair(
            keyId: try #require(keys["keyId"]), privateKey: try #require(Base64URL.decode(keys["d"] ?? "")),
            authSecret: try #require(Base64URL.decode(keys["auth"] ?? "")))
    }

    @Test func theAES128GCMExampleOpensWithTheKitToItsPlaintextAndEvent() throws {
        let page = try Page.load()
        let key = try Self.deviceKey(page)
        #expect(key.registration.p256dh == (try page.values("aes128gcm keys"))["p256dh"], "p256dh is the public half of d")
        let data = try page.dataMap("aes128gcm data map")
        #expect(isHeraldNotification(data))
        let body = try #require(Base64URL.decode(data["payload"] ?? ""))
        #expect(try key.key.decrypt(body) == Data(try page.block("aes128gcm plaintext").utf8))

        let push = try HeraldNotificationDecoder(keyring: HeraldKeyring(deviceKeys: [key])).decode(data)
        #expect(push.event == .chatMessage(ChatEvent(channelId: "ch-9", actorId: "ann", messageType: .text)))
        #expect(push.alert == HeraldAlert(title: "Ann (Design)", body: "Lunch at 12?"))
        #expect(push.encryption == .aes128gcm(keyId: "phone-2026-11"))
    }

    /// Each value of the steps block, from the page's formulas (HMAC-SHA-256 as written there,
    /// not HeraldCrypto's HKDF).
    @Test func everyStepOfTheAES128GCMExampleIsWhatThePageSays() throws {
        let page = try Page.load()
        let steps = try page.values("aes128gcm steps")
        let key = try Self.deviceKey(page)
        let body = try #require(Base64URL.decode(try page.dataMap("aes128gcm data map")["payload"] ?? ""))
        #expect(body.count == 279, "the page says 279 bytes")
        let salt = body.prefix(16)
        let recordSize = body.dropFirst(16).prefix(4).reduce(0) { $0 << 8 | Int($1) }
        let idLength = Int(body[body.startIndex + 20])
        let senderKey = body.dropFirst(21).prefix(65)
        #expect(steps["salt"] == Self.hex(salt))
        #expect(steps["rs"] == "\(recordSize)")
        #expect(steps["idlen"] == "\(idLength)")
        #expect(steps["keyid"] == Self.hex(senderKey))

        let sender = try P256.KeyAgreement.PublicKey(x963Representation: senderKey)
        let ecdh = try key.key.privateKey.sharedSecretFromKeyAgreement(with: sender).withUnsafeBytes { Data($0) }
        #expect(steps["ecdh_secret"] == Self.hex(ecdh))
        let prkKey = Self.hmac(key: key.key.authSecret, ecdh)
        #expect(steps["prk_key"] == Self.hex(prkKey))
        let keyInfo = Data("WebPush: info".utf8) + [0] + key.key.publicKey.publicKeyBytes + senderKey
        #expect(keyInfo.count == 144)
        #expect(steps["key_info"] == Self.hex(keyInfo))
        let ikm = Self.hmac(key: prkKey, keyInfo + [1])
        #expect(steps["ikm"] == Self.hex(ikm))
        let prk = Self.hmac(key: salt, ikm)
        #expect(steps["prk"] == Self.hex(prk))
        let cek = Self.hmac(key: prk, Data("Content-Encoding: aes128gcm".utf8) + [0, 1]).prefix(16)
        #expect(steps["cek"] == Self.hex(cek))
        let nonce = Self.hmac(key: prk, Data("Content-Encoding: nonce".utf8) + [0, 1]).prefix(12)
        #expect(steps["nonce"] == Self.hex(nonce))

        let record = body.dropFirst(86)
        #expect(record.count == 193)
        let opened = try AES.GCM.open(
            AES.GCM.SealedBox(nonce: AES.GCM.Nonce(data: nonce), ciphertext: record.dropLast(16), tag: record.suffix(16)),
            using: SymmetricKey(data: cek))
        #expect(opened.count == 177 && opened.last == 0x02, "177 bytes ending in the delimiter 02")
        #expect(opened.dropLast() == Data(try page.block("aes128gcm plaintext").utf8))
    }

    // MARK: jwe

    static func addressKey(_ page: Page) throws -> AddressKeyPair {
        try AddressKeyPair(keyId: "addr-key-1", privateKeyPEM: page.block("jwe private key"))
    }

    @Test func theWebcomRevocationExampleOpensWithTheKitToItsReasonAndAppId() throws {
        let data = try Page.load().dataMap("webcom revocation data map")
        let push = try HeraldNotificationDecoder(keyring: HeraldKeyring()).decode(data)
        #expect(push.event == .subscriptionRevoked(SubscriptionRevocation(path: "/boards/1", reason: "permission denied", appId: "demo")))
        #expect(push.encryption == HeraldNotification.Encryption.none && push.eventId == "webcom:3f0c9a52")
    }

    @Test func theJWEExampleOpensWithTheKitToItsPlaintextAndEvent() throws {
        let page = try Page.load()
        let key = try Self.addressKey(page)
        #expect(key.registration.publicKey == (try page.block("jwe public key")), "the public key printed is the private key's")
        let data = try page.dataMap("jwe data map")
        #expect(try key.key.decrypt(data["payload"] ?? "").plaintext == Data(try page.block("jwe plaintext").utf8))

        let push = try HeraldNotificationDecoder(keyring: HeraldKeyring(addressKeys: [key])).decode(data)
        #expect(push.event == .emailReceived(EmailReceived(
            emailAddressId: "addr-1", sudoId: "sudo-1", messageId: "mail-1", owner: "owner-1", from: "alice@example.com",
            subject: "Lunch?", receivedAt: "2026-11-21T10:00:00Z")))
        #expect(push.alert == nil)
        #expect(push.encryption == .jwe(keyId: "addr-key-1"))
    }

    @Test func everyStepOfTheJWEExampleIsWhatThePageSays() throws {
        let page = try Page.load()
        let steps = try page.values("jwe steps")
        let key = try Self.addressKey(page)
        let parts = try #require(page.dataMap("jwe data map")["payload"]).split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        #expect(parts.count == 5)
        let header = try #require(Base64URL.decode(parts[0]))
        #expect(steps["header"] == String(decoding: header, as: UTF8.self))
        let encryptedKey = try #require(Base64URL.decode(parts[1]))
        #expect(steps["encrypted_key"]?.hasPrefix("\(encryptedKey.count) bytes") == true)
        let cek = try key.key.key.decrypt(encryptedKey, padding: .PKCS1_OAEP_SHA256)
        #expect(steps["cek"] == Self.hex(cek))
        let iv = try #require(Base64URL.decode(parts[2]))
        #expect(steps["iv"] == Self.hex(iv))
        let ciphertext = try #require(Base64URL.decode(parts[3]))
        #expect(steps["ciphertext"]?.hasPrefix("\(ciphertext.count) bytes") == true)
        let tag = try #require(Base64URL.decode(parts[4]))
        #expect(steps["tag"] == Self.hex(tag))
        #expect(steps["aad"]?.hasSuffix(parts[0]) == true)
        let opened = try AES.GCM.open(
            AES.GCM.SealedBox(nonce: AES.GCM.Nonce(data: iv), ciphertext: ciphertext, tag: tag),
            using: SymmetricKey(data: cek), authenticating: Data(parts[0].utf8))
        #expect(opened == Data(try page.block("jwe plaintext").utf8))
    }

    // MARK: independent implementations

    static let interop = PythonChecker.packageRoot.appendingPathComponent("Tests/HeraldCryptoTests/Interop/interop.py").path

    @Test(.needs(.python))
    func httpEceAndJoserfcDecryptTheExamplesToTheSamePlaintexts() async throws {
        let page = try Page.load()
        let keys = try page.values("aes128gcm keys")
        let ece = try await PythonChecker.run(Self.interop, [
            "op": "ece-decrypt", "body": try #require(page.dataMap("aes128gcm data map")["payload"]),
            "privateKey": try #require(keys["d"]), "auth": try #require(keys["auth"]),
        ])
        #expect(Base64URL.decode(ece["plaintext"] as? String ?? "") == Data(try page.block("aes128gcm plaintext").utf8))
        let jose = try await PythonChecker.run(Self.interop, [
            "op": "jwe-decrypt", "compact": try #require(page.dataMap("jwe data map")["payload"]),
            "privateKeyPem": try page.block("jwe private key"),
        ])
        #expect(Base64URL.decode(jose["plaintext"] as? String ?? "") == Data(try page.block("jwe plaintext").utf8))
    }
}
