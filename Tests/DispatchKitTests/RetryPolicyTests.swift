import DispatchKit
import Foundation
import HeraldDomain
import HeraldModel
import HeraldTestSupport
import HeraldStackTestSupport
import ServiceKit
import Testing

/// What `DispatchStage` emits for a retryable failure: the schedule, the floor of
/// `Retry-After`, and the limits of two hours and the TTL.
struct RetryPolicyTests {
    let routes = DispatchStage.Routes(platform: .fcm)
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func emissions(_ request: DispatchRequest, _ result: SendResult) throws -> [Emission] {
        try DispatchStage.emissions(for: request, result: result, platform: .fcm, routes: routes, policy: RetryPolicy(), sentAt: now, now: now)
    }

    @Test(arguments: [(1, 1.0, 1.5), (2, 2.0, 3.0), (3, 4.0, 6.0), (6, 32.0, 48.0)])
    func theDelayDoublesFromOneSecondWithUpToHalfAddedAtRandom(attempt: Int, low: Double, high: Double) {
        let policy = RetryPolicy()
        #expect(policy.delay(afterAttempt: attempt, retryAfter: nil, random: 0) == .seconds(low))
        #expect(policy.delay(afterAttempt: attempt, retryAfter: nil, random: 0.999_999) <= .milliseconds(Int(high * 1000)))
    }

    @Test func aHugeRetryAfterIsCappedNotTrapped() {
        let policy = RetryPolicy()
        #expect(RetryAfter.parse("9223372036854775807") == RetryAfter.longest)
        #expect(RetryAfter.parse("Fri, 31 Dec 9999 23:59:59 GMT", now: Date(timeIntervalSince1970: 0)) == RetryAfter.longest)
        #expect(policy.delay(afterAttempt: 1, retryAfter: .seconds(Int64.max), random: 0) == RetryAfter.longest)
    }

    @Test func aHugeAttemptNumberIsCappedNotTrapped() {
        let policy = RetryPolicy()
        #expect(policy.delay(afterAttempt: Int.max, retryAfter: nil, random: 0.5) == RetryAfter.longest)
        #expect(policy.delay(afterAttempt: 2_000, retryAfter: nil, random: 0) == RetryAfter.longest)
    }

    @Test func retryAfterIsAFloorAndTheTierIsTheNextOneUp() {
        let policy = RetryPolicy()
        let delay = policy.delay(afterAttempt: 1, retryAfter: .seconds(100), random: 0)
        #expect(delay == .seconds(100))
        #expect(policy.tier(for: delay).label == "2m")
        #expect(policy.tier(for: .seconds(1)).label == "1s")
        #expect(policy.tier(for: .seconds(5000)).label == "20m", "the longest tier caps the delay")
    }

    @Test func aRetryGoesToTheTierWithTheNextAttemptAndTheFirstAttemptsTime() throws {
        var request = TestSandbox.request(token: "t")
        request.attempt = 3
        request.firstAttemptAt = now.addingTimeInterval(-60)
        let emitted = try emissions(request, .retry(code: FakeCode("UNAVAILABLE"), reason: "busy", retryAfter: .seconds(10)))
        #expect(emitted.count == 2)
        let retry = emitted[0].message
        #expect(retry.exchange == HeraldTopology.Exchange.retry.name)
        #expect(retry.routingKey == "fcm.15s", "max(4–6 s backoff, 10 s Retry-After) rounds up to 15 s")
        let next = try HeraldJSON.decode(DispatchRequest.self, from: retry.body)
        #expect(next.attempt == 4 && next.firstAttemptAt == request.firstAttemptAt && next.deliveryId == request.deliveryId)
        let outcome = try HeraldJSON.decode(Outcome.self, from: emitted[1].message.body)
        #expect(outcome.status == .retrying && outcome.providerCode == "UNAVAILABLE")
    }

    @Test func aHeldSendWaitsInTheTierForTheTimeLeftWithNoAttemptAndNoOutcome() throws {
        var request = TestSandbox.request(token: "t")
        request.attempt = 3
        let emitted = try emissions(request, .held(reason: "the endpoint keeps failing", retryAfter: .seconds(25)))
        #expect(emitted.count == 1, "no outcome: nothing was tried")
        #expect(emitted[0].message.exchange == HeraldTopology.Exchange.retry.name && emitted[0].message.routingKey == "fcm.30s")
        let next = try HeraldJSON.decode(DispatchRequest.self, from: emitted[0].message.body)
        #expect(next.attempt == 3 && next.firstAttemptAt == now && next.notBefore == nil)
    }

    @Test func aSendHeldPastTwoHoursExpires() throws {
        var request = TestSandbox.request(token: "t")
        request.firstAttemptAt = now.addingTimeInterval(-7200 + 10)
        let emitted = try emissions(request, .held(reason: "the endpoint keeps failing", retryAfter: .seconds(30)))
        let outcome = try HeraldJSON.decode(Outcome.self, from: try #require(emitted.first).message.body)
        #expect(emitted.count == 1 && outcome.status == .expired && outcome.reason?.contains("kept failing") == true)
    }

    @Test func theFirstRetryRecordsWhenTheFirstAttemptWasMade() throws {
        let emitted = try emissions(TestSandbox.request(token: "t"), .retry(code: FakeCode("INTERNAL"), reason: "oops"))
        let next = try HeraldJSON.decode(DispatchRequest.self, from: emitted[0].message.body)
        #expect(next.attempt == 2 && next.firstAttemptAt == now)
    }

    @Test func twoHoursAfterTheFirstAttemptTheDeliveryExpires() throws {
        var request = TestSandbox.request(token: "t")
        request.attempt = 12
        request.firstAttemptAt = now.addingTimeInterval(-7200 + 30)
        let emitted = try emissions(request, .retry(code: FakeCode("UNAVAILABLE"), reason: "busy"))
        #expect(emitted.count == 1)
        let outcome = try HeraldJSON.decode(Outcome.self, from: emitted[0].message.body)
        #expect(outcome.status == .expired && outcome.reason?.contains("gave up after 12 attempts") == true)
    }

    @Test func aTTLOfZeroIsTriedOnceAndEndsExpiredOnARetryableFailure() throws {
        var request = TestSandbox.request(token: "t")
        request.ttlSeconds = 0
        request.expiresAt = nil
        let emitted = try emissions(request, .retry(code: FakeCode("UNAVAILABLE"), reason: "busy"))
        #expect(emitted.count == 1, "no retry is scheduled")
        let outcome = try HeraldJSON.decode(Outcome.self, from: emitted[0].message.body)
        #expect(outcome.status == .expired && outcome.providerCode == "UNAVAILABLE")
        #expect(outcome.reason?.contains("TTL of 0") == true)
    }

    @Test func aRetryAfterLongerThanTheLongestTierIsHonouredByGoingRoundTheTiers() throws {
        let request = TestSandbox.request(token: "t")
        let emitted = try emissions(request, .retry(code: FakeCode("QUOTA_EXCEEDED"), reason: "quota", retryAfter: .seconds(3_000)))
        #expect(emitted.count == 2)
        #expect(emitted[0].message.routingKey == "fcm.20m", "the longest tier first")
        let next = try HeraldJSON.decode(DispatchRequest.self, from: emitted[0].message.body)
        #expect(next.notBefore == now.addingTimeInterval(3_000) && next.attempt == request.attempt + 1)
    }

    @Test func aRequestBackBeforeItsTimeGoesRoundAgainWithoutASend() throws {
        var request = TestSandbox.request(token: "t")
        request.notBefore = now.addingTimeInterval(1_800)
        let parked = try #require(try DispatchStage.parked(request, routes: routes, now: now))
        #expect(parked.count == 1, "no outcome: nothing happened to the delivery")
        #expect(parked[0].message.routingKey == "fcm.20m")
        #expect(try HeraldJSON.decode(DispatchRequest.self, from: parked[0].message.body) == request)
        request.notBefore = now.addingTimeInterval(200)
        #expect(try DispatchStage.parked(request, routes: routes, now: now)?.first?.message.routingKey == "fcm.5m")
        request.notBefore = now
        #expect(try DispatchStage.parked(request, routes: routes, now: now) == nil, "its time has come: sent")
    }

    @Test func aRetryAfterBeyondTheTwoHoursEndsTheDeliveryAsExpired() throws {
        let emitted = try emissions(TestSandbox.request(token: "t"), .retry(code: FakeCode("QUOTA_EXCEEDED"), reason: "quota", retryAfter: .seconds(3 * 3_600)))
        #expect(emitted.count == 1)
        let outcome = try HeraldJSON.decode(Outcome.self, from: emitted[0].message.body)
        #expect(outcome.status == .expired)
    }

    @Test func theTwoHoursCountFromAcceptanceNotFromTheFirstAttempt() throws {
        // Accepted 1 h 59 min ago, first tried now (it waited in a queue): a retry in 2 minutes
        // would be past two hours from acceptance.
        var request = TestSandbox.request(token: "t")
        request.acceptedAt = now.addingTimeInterval(-(2 * 3_600 - 60))
        let emitted = try emissions(request, .retry(code: FakeCode("UNAVAILABLE"), reason: "busy", retryAfter: .seconds(120)))
        #expect(emitted.count == 1)
        #expect(try HeraldJSON.decode(Outcome.self, from: emitted[0].message.body).status == .expired)
        // Accepted just now, the same failure is retried.
        request.acceptedAt = now
        let retried = try emissions(request, .retry(code: FakeCode("UNAVAILABLE"), reason: "busy", retryAfter: .seconds(120)))
        #expect(try HeraldJSON.decode(DispatchRequest.self, from: retried[0].message.body).attempt == 2)
    }

    @Test func aRetryThatWouldLandAfterTheTTLExpiresInstead() throws {
        let request = TestSandbox.request(token: "t", expiresAt: now.addingTimeInterval(1.5))
        let emitted = try emissions(request, .retry(code: FakeCode("QUOTA_EXCEEDED"), reason: "quota", retryAfter: .seconds(5)))
        #expect(try HeraldJSON.decode(Outcome.self, from: emitted[0].message.body).status == .expired)
    }

    @Test func aProviderSayingTheTTLIsOverEndsTheDeliveryAsExpiredWithoutARevocation() throws {
        let emitted = try emissions(TestSandbox.request(token: "t"), .expired(code: FakeCode("80100004"), reason: "the TTL is over"))
        #expect(emitted.count == 1, "no retry, no revocation")
        let outcome = try HeraldJSON.decode(Outcome.self, from: emitted[0].message.body)
        #expect(outcome.status == .expired && outcome.providerCode == "80100004" && outcome.reason == "the TTL is over")
    }

    @Test func aDeadTokenIsRevokedWithTheTimeOfTheFailedSend() throws {
        let request = TestSandbox.request(token: "dead")
        let emitted = try emissions(request, .revoked(code: FakeCode("UNREGISTERED"), reason: "gone"))
        #expect(emitted[0].message.exchange == HeraldTopology.Exchange.control.name && emitted[0].message.routingKey == "token.revoked")
        let revocation = try HeraldJSON.decode(TokenRevoked.self, from: emitted[0].message.body)
        #expect(revocation.failedSendAt == now && revocation.token == "dead" && revocation.deviceId == request.deviceId)
        #expect(try HeraldJSON.decode(Outcome.self, from: emitted[1].message.body).status == .revoked)
    }
}
