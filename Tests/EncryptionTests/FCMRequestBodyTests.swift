import Foundation
import HeraldModel
import FCM
import Testing

@Suite("FCM request bodies written without JSONEncoder")
struct FCMRequestBodyTests {
    @Test("2,000 generated dispatch requests: the body written directly equals the encoder's, validate_only or not")
    func generatedRequests() throws {
        var state: UInt64 = 19
        func next(_ bound: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(bound))
        }
        func text() -> String {
            let pieces = ["a", "Z", "9", "-", "/", "\"", "\\", "\n", "\u{1}", "é", "😀", " ", "_"]
            return (0..<next(8)).map { _ in pieces[next(pieces.count)] }.joined()
        }
        func maybe() -> String? { next(2) == 0 ? nil : text() }
        let now = Date(timeIntervalSince1970: 1_795_000_000)
        for _ in 0..<2000 {
            let request = DispatchRequest(
                deliveryId: "d", eventId: "e", app: "a", kind: "k", platform: .fcm, deviceId: "dev", token: text(),
                os: [.ios, .android, .web, .other][next(4)],
                data: Dictionary((0..<next(4)).map { _ in (text(), text()) }, uniquingKeysWith: { first, _ in first }),
                notification: next(2) == 0 ? nil : DispatchRequest.Notification(title: maybe(), body: maybe()),
                ttlSeconds: next(2) == 0 ? nil : next(5_000_000), priority: next(2) == 0 ? .high : .normal,
                collapseKey: maybe(),
                ios: next(2) == 0 ? nil : DispatchRequest.IOSHints(mutableContent: next(2) == 0, contentAvailable: next(2) == 0),
                expiresAt: next(2) == 0 ? nil : now.addingTimeInterval(Double(next(3_000_000)) - 1000))
            let message = FCMMessage(request, now: now)
            for validateOnly in [false, true] {
                let written = try message.requestBody(validateOnly: validateOnly)
                let encoded = try message.encodedRequestBody(validateOnly: validateOnly)
                #expect(written == encoded, "\(String(decoding: encoded, as: UTF8.self))")
                if written != encoded { return }
            }
        }
    }
}
