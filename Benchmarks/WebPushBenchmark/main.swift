// herald-webpush-bench: a benchmark, not a test.
//
//   herald-webpush-bench <sandbox http origin> <vapid.pem> <ca.pem> [sends=200000] [streams=100]
//
// One process sends to the sandbox's push service (started by scripts/bench-webpush) the way
// herald-webpush does: WebPushClient over one HTTPTransport, one HTTP/2 connection with
// `streams` concurrent streams, a VAPID token per origin, the address guard, each request an
// aes128gcm message of a chat push's size (encrypted once: the encryption stage encrypts, not
// the dispatcher). Reports sends/s, p50/p99 send latency, and resident memory before and after.
import BenchmarkSupport
import DispatchKit
import Foundation
import HeraldCrypto
import HeraldModel
import HTTPTransport
import WebPush

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count >= 3 else {
    FileHandle.standardError.write(Data("usage: herald-webpush-bench <sandbox http origin> <vapid.pem> <ca.pem> [sends] [streams]\n".utf8))
    exit(64)
}
let total = arguments.count > 3 ? Int(arguments[3]) ?? 200_000 : 200_000
let streams = arguments.count > 4 ? Int(arguments[4]) ?? 100 : 100

// A subscription, as a browser would make one.
let plain = HTTPTransport(configuration: HTTPTransportConfiguration(name: "subscribe"))
let made = try await plain.send(HTTPRequest(method: "POST", url: arguments[0] + "/webpush/subscriptions"))
await plain.close()
guard made.status == 201, let json = try JSONSerialization.jsonObject(with: made.body) as? [String: Any],
      let endpoint = json["endpoint"] as? String, let keys = json["keys"] as? [String: String] else {
    FileHandle.standardError.write(Data("the sandbox made no subscription: \(made.status)\n".utf8))
    exit(1)
}
let message = #"{"alert":{"body":"Lunch at noon? The usual place, unless it rains.","title":"Ann (General)"},"channelId":"general","event":"upstra:bench","herald":"1","kind":"message.created"}"#
let body = try WebPushEncryption.encrypt(Data(message.utf8), to: WebPushKey(p256dh: keys["p256dh"]!, auth: keys["auth"]!))
let payload = Base64URL.encode(body)

let transport = HTTPTransport(configuration: HTTPTransportConfiguration(name: "webpush", maxConcurrentStreams: streams, maxConnectionsPerHost: 1, caFile: arguments[2]))
let client = WebPushClient(app: "bench", key: try VAPIDKey(pemFile: arguments[1]), subject: "mailto:bench@herald.example", allowPrivateNetworks: true, transport: transport)
@Sendable func request(_ n: Int) -> DispatchRequest {
    DispatchRequest(
        deliveryId: "b\(n)", eventId: "e\(n)", app: "bench", kind: "message.created", platform: .webpush, deviceId: "browser",
        token: endpoint, os: .web, data: ["enc": "aes128gcm", "kid": "subscription", "payload": payload], ttlSeconds: 3600, priority: .high)
}

// Warm up: the connection and the VAPID token.
_ = await client.send(request(-1))
let rssStart = residentMiB()
let result = await ConcurrentSends.measure(count: total, concurrency: streams) { n in
    if case .delivered = await client.send(request(n)) { return true }
    return false
}
let rssEnd = residentMiB()
await transport.close()
print(#"{"sends":\#(total),"streams":\#(streams),"sendsPerSecond":\#(Int(result.rate)),"p50ms":\#(result.latency.percentile(0.5)),"p99ms":\#(result.latency.percentile(0.99)),"failures":\#(result.failures),"rssStartMiB":\#(String(format: "%.1f", rssStart)),"rssAfterAllMiB":\#(String(format: "%.1f", rssEnd))}"#)
