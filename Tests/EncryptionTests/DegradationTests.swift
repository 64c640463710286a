import Foundation
import HeraldModel
import HeraldProviders
import HeraldSources
import Encryption
import FCM
import HMS
import Testing

/// Payloads over a provider's limit degrade, exactly at the byte boundary: FCM counts the
/// data map's keys and values (4096), Push Kit the message body without tokens (4096).
struct DegradationTests {
    typealias S = PayloadSamples
    let builder = PayloadBuilder(providers: .herald, sources: .herald)

    func build(_ delivery: Delivery) throws -> (DispatchRequest, DataMap.Variant, String?) {
        guard case .dispatch(let request, let variant, let scheme) = builder.build(delivery, now: S.now) else {
            throw TestError("not dispatched: \(builder.build(delivery, now: S.now))")
        }
        return (request, variant, scheme)
    }

    /// The size the provider measures for a request.
    static func size(_ request: DispatchRequest) -> Int {
        request.platform == .fcm ? FCMMessage.dataSize(request.data) : HMSMessage(request, now: S.now).bodyByteCount
    }

    /// Pads `field` of a delivery so that its full variant measures exactly `target` bytes.
    static func padded(_ make: (String) -> Delivery, field: String = "value", to target: Int) throws -> Delivery {
        let builder = PayloadBuilder(providers: .herald, sources: .herald)
        guard case .dispatch(let base, _, _) = builder.build(make(""), now: S.now) else { throw TestError("base not dispatched") }
        let missing = target - size(base)
        return make(String(repeating: "x", count: missing))
    }

    @Test(arguments: [Platform.fcm, .hms])
    func aValueChangeOfExactlyTheLimitIsSentWholeAndOneByteMoreIsTooBig(platform: Platform) throws {
        let device = S.device(platform, os: .android)
        let atLimit = try Self.padded({ S.webcomValue(device, value: $0) }, to: 4096)
        let (whole, variant, _) = try build(atLimit)
        #expect(variant == .full)
        #expect(Self.size(whole) == 4096)

        var over = atLimit
        over.data["value"]! += "x"
        let (degraded, overVariant, _) = try build(over)
        #expect(overVariant == .tooBig)
        #expect(degraded.data == ["herald": "1", "event": "wc-13", "kind": "value.changed", "variant": "tooBig", "path": "/sensors/s1"])
    }

    @Test(arguments: [Platform.fcm, .hms])
    func childrenUpdatedOverTheLimitKeepsOnlyTheKeys(platform: Platform) throws {
        let device = S.device(platform, os: .android)
        let atLimit = try Self.padded({ S.webcomChildren(device, added: #"{"k1":"\#($0)","k2":1}"#) }, to: 4096)
        #expect(try build(atLimit).1 == .full)

        var over = atLimit
        over.data["added"] = over.data["added"]!.replacingOccurrences(of: "\"k2\":1", with: "\"k2\":12")
        let (degraded, variant, _) = try build(over)
        #expect(variant == .onlyKeys)
        #expect(degraded.data["added"] == #"["k1","k2"]"#)
        #expect(degraded.data["changed"] == #"["k0"]"#)
        #expect(degraded.data["removed"] == #"["k9"]"#)
        #expect(degraded.data["path"] == "/rooms/r1/messages")
        #expect(degraded.data["variant"] == "onlyKeys")
    }

    @Test func childrenUpdatedWhoseKeysAloneAreOverTheLimitIsTooBig() throws {
        let keys = (0..<400).map { "\"child-key-\($0)\":1" }.joined(separator: ",")
        let (degraded, variant, _) = try build(S.webcomChildren(S.device(.fcm, os: .android), added: "{\(keys)}"))
        #expect(variant == .tooBig)
        #expect(degraded.data == ["herald": "1", "event": "wc-12", "kind": "children.updated", "variant": "tooBig", "path": "/rooms/r1/messages"])
    }

    @Test func hideDataSendsTheHiddenVariantHoweverSmallTheData() throws {
        let (request, variant, _) = try build(S.webcomValue(S.device(.fcm, os: .android), value: "1", hideData: true))
        #expect(variant == .hidden)
        #expect(request.data == ["herald": "1", "event": "wc-13", "kind": "value.changed", "variant": "hidden", "path": "/sensors/s1"])
    }

    @Test func anyOtherEventOverTheLimitKeepsItsIds() throws {
        var email = S.sudoEmail(S.device(.fcm, os: .android))
        email.addressKey = nil
        email.options.encryption = EncryptionPolicy.none
        email.data.removeValue(forKey: "from")
        email.data["subject"] = String(repeating: "s", count: 5000)
        let (request, variant, _) = try build(email)
        #expect(variant == .tooBig)
        #expect(request.data == ["herald": "1", "event": "email-5", "kind": "email.received", "variant": "tooBig",
                                 "emailAddressId": "addr-1", "sudoId": "sudo-1", "messageId": "em-5"])
    }

    @Test(arguments: [Platform.fcm, .hms])
    func anEncryptedPayloadAtTheLimitIsSentWholeAndOverItDegrades(platform: Platform) throws {
        // Find the largest value whose encrypted payload still fits, by growing it a byte at a time.
        let device = S.device(platform, os: .android, key: S.deviceKey)
        func delivery(_ length: Int) -> Delivery {
            var d = S.webcomValue(device, value: String(repeating: "v", count: length))
            d.options.encryption = .required
            return d
        }
        var length = 2000
        while try build(delivery(length + 1)).1 == .full { length += 1 }
        let (fitting, variant, scheme) = try build(delivery(length))
        #expect(variant == .full && scheme == "aes128gcm")
        #expect(Self.size(fitting) <= 4096)
        #expect(Self.size(fitting) > 4096 - 4, "base64url grows in steps of at most 4 characters")
        let (degraded, overVariant, overScheme) = try build(delivery(length + 1))
        #expect(overVariant == .tooBig && overScheme == "aes128gcm")
        #expect(Self.size(degraded) < 4096)
    }

    @Test func webhookDeliveriesAreNeverDegraded() throws {
        let (request, variant, _) = try build(S.webcomValue(S.device(.webhook, os: .other), value: String(repeating: "w", count: 10_000)))
        #expect(variant == .full)
        #expect(request.data["value"]?.count == 10_000)
    }
}
