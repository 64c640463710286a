// herald-encryption-bench: a benchmark, not a test.
//
//   herald-encryption-bench crypto [seconds-per-measure=2] [rounds=5]
//       aes128gcm and JWE encryptions/s and whole payload builds/s, on one thread (one core).
//   herald-encryption-bench stage [deliveries=20000] [aes128gcm|plain]
//       the encryption stage on the broker: N deliveries queued, then consumed, encrypted (or
//       not) and published with confirms; reports deliveries/s until the last dispatch arrives.
import _CryptoExtras
import BenchmarkSupport
import Crypto
import Foundation
import HeraldCrypto
import HeraldDomain
import HeraldModel
import HeraldProviders
import HeraldSources
import Encryption
import ServiceKit

let arguments = CommandLine.arguments.dropFirst()
let mode = arguments.first ?? "crypto"

/// A typical payload: the data map of an email notification (about 330 bytes of JSON).
let plaintext = Data(#"{"emailAddressId":"6a1f0c2e-addr","event":"3c9e7f52-5b7d-4f0e-a1d2-0f4f8e9b6c11","from":"alice@example.com","herald":"1","kind":"email.received","messageId":"em-2b8c1d","receivedAt":"2026-11-21T09:59:57.000Z","subject":"Quarterly report: figures for the board","sudoId":"sudo-41d2"}"#.utf8)

let devicePrivate = P256.KeyAgreement.PrivateKey()
let deviceAuth = Data((0..<16).map { _ in UInt8.random(in: 0...255) })
let webPushKey = try WebPushKey(publicKey: devicePrivate.publicKey, authSecret: deviceAuth)
let deviceKey = DeviceKey(keyId: "k1", p256dh: Base64URL.encode(devicePrivate.publicKey.x963Representation), auth: Base64URL.encode(deviceAuth))

func device(_ platform: Platform = .fcm, key: DeviceKey? = deviceKey) -> DeviceTarget {
    DeviceTarget(id: "d-\(UUID().uuidString.prefix(8))", platform: platform, token: "bench-token", os: .android, userId: "u1", locale: "en", key: key)
}

func delivery(_ n: Int, key: DeviceKey? = deviceKey, addressKey: AddressKey? = nil) -> Delivery {
    Delivery(
        eventId: "bench-\(n)", app: "bench", source: .upstra, kind: "message.created", occurredAt: Date(),
        context: ["channelId": "ch-1"], data: ["channelId": "ch-1", "messageId": "m-\(n)"],
        alert: .template(name: "message.created", args: ["user": "Ann", "channel": "Design", "text": "Lunch at 12?"]),
        options: DeliveryOptions(ttlSeconds: 3600), device: device(key: key), addressKey: addressKey)
}

switch mode {
case "crypto":
    let seconds = Double(arguments.dropFirst().first ?? "2") ?? 2
    let rounds = Int(arguments.dropFirst(2).first ?? "5") ?? 5
    let rsa2048 = try _RSA.Encryption.PrivateKey(keySize: .bits2048)
    let rsa4096 = try _RSA.Encryption.PrivateKey(keySize: .bits4096)
    let jwe2048 = try RSAEncryptionKey(rsa2048.publicKey.pemRepresentation)
    let jwe4096 = try RSAEncryptionKey(rsa4096.publicKey.pemRepresentation)
    let address = AddressKey(emailAddressId: "a1", keyId: "ak1", publicKey: rsa2048.publicKey.derRepresentation.base64EncodedString())
    let builder = PayloadBuilder(providers: .herald, sources: .herald)
    let plainDelivery = delivery(1, key: nil)
    let webPushDelivery = delivery(2)
    let jweDelivery = delivery(3, key: nil, addressKey: address)
    var results: [String: [Double]] = [:]
    for _ in 0..<rounds {
        results["aes128gcm_encryptions_per_s", default: []].append(try OperationRate.measure(seconds: seconds) { _ = try WebPushEncryption.encrypt(plaintext, to: webPushKey) })
        results["jwe_rsa2048_encryptions_per_s", default: []].append(try OperationRate.measure(seconds: seconds) { _ = try JWE.encrypt(plaintext, to: jwe2048, keyId: "k") })
        results["jwe_rsa4096_encryptions_per_s", default: []].append(try OperationRate.measure(seconds: seconds) { _ = try JWE.encrypt(plaintext, to: jwe4096, keyId: "k") })
        results["build_plain_per_s", default: []].append(OperationRate.measure(seconds: seconds) { _ = builder.build(plainDelivery) })
        results["build_aes128gcm_per_s", default: []].append(OperationRate.measure(seconds: seconds) { _ = builder.build(webPushDelivery) })
        results["build_jwe2048_per_s", default: []].append(OperationRate.measure(seconds: seconds) { _ = builder.build(jweDelivery) })
    }
    for name in results.keys.sorted() { OperationRate.report(name, results[name]!) }

case "stage":
    let count = Int(arguments.dropFirst().first ?? "20000") ?? 20000
    let encrypted = (arguments.dropFirst(2).first ?? "aes128gcm") != "plain"
    let herald = try HeraldConfiguration(providers: .herald, sources: .herald)
    let elapsed = try await StageThroughput.measure(
        label: "encryption", count: count, outputKey: "fcm",
        input: { delivery($0, key: encrypted ? deviceKey : nil) },
        stage: { runtime, routes in
            EncryptionStage.make(runtime: runtime, herald: herald, routes: routes, prefetch: 512)
        })
    let seconds = StageThroughput.seconds(elapsed)
    print(#"{"measure":"stage_deliveries_per_s","payload":"\#(encrypted ? "aes128gcm" : "plain")","deliveries":\#(count),"seconds":\#(String(format: "%.2f", seconds)),"perSecond":\#(Int(Double(count) / seconds))}"#)

default:
    FileHandle.standardError.write(Data("usage: herald-encryption-bench crypto [seconds] [rounds] | stage [deliveries]\n".utf8))
    exit(64)
}
