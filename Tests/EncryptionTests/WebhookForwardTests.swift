import Foundation
import HeraldModel
import HeraldProviders
import HeraldSources
import Encryption
import Testing

/// A webhook delivery becomes a forward: the event's own data and context, the alert
/// rendered for the recipient, never encrypted, never degraded.
struct WebhookForwardTests {
    typealias S = PayloadSamples
    let builder = PayloadBuilder(providers: .herald, sources: .herald)

    @Test func aForwardCarriesTheEventsDataContextAndRenderedAlertInClear() throws {
        var delivery = S.encrypted(S.upstraMessage(S.device(.webhook, os: .android, key: S.deviceKey)))
        delivery.options.ttlSeconds = 60
        guard case .dispatch(let request, let variant, let scheme) = builder.build(delivery, now: S.now) else {
            Issue.record("not dispatched: \(builder.build(delivery, now: S.now))")
            return
        }
        #expect(variant == .full && scheme == nil, "the tenant's own server is the recipient: nothing to encrypt for")
        #expect(request.platform == .webhook)
        #expect(request.data == delivery.data)
        #expect(request.notification?.title?.contains("Ann") == true)
        #expect(request.forward == DispatchRequest.WebhookForward(
            source: .upstra, occurredAt: S.occurredAt, context: delivery.context, recipient: try #require(delivery.device.recipient)))
        #expect(request.expiresAt == S.occurredAt.addingTimeInterval(60))
    }

    @Test func aWebhookDeliveryWithoutARecipientFailsWithItsReason() {
        var delivery = S.upstraMessage(S.device(.webhook, os: .android))
        delivery.device.recipient = nil
        guard case .failed(let failure) = builder.build(delivery, now: S.now) else {
            Issue.record("dispatched a forward that says nothing of its recipient")
            return
        }
        #expect(failure.reason == .notForwardable)
    }
}
