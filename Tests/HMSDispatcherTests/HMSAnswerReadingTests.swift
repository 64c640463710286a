import DispatchKit
import Foundation
import HMS
import HTTPTransport
import Testing

/// Push Kit answers the sandbox does not give, read from their bodies.
@Suite("Reading Push Kit answers")
struct HMSAnswerReadingTests {
    static func response(_ status: Int, _ body: String, headers: [(String, String)] = []) -> HTTPResponse {
        HTTPResponse(status: status, headers: headers.map { (name: $0.0, value: $0.1) }, body: Data(body.utf8), httpVersion: "2")
    }

    @Test(arguments: ["80100001", "80100003", "80100018", "80300002", "80300008"])
    func parameterAndPermissionErrorsFailEveryTokenPermanently(_ code: String) {
        let reading = HMSAnswer.read(Self.response(400, #"{"code":"\#(code)","msg":"bad","requestId":"r"}"#), tokens: ["a", "b"])
        #expect(reading == .results([.failed(code: HMSResultCode(code), reason: "bad"), .failed(code: HMSResultCode(code), reason: "bad")]))
    }

    @Test func anHTTP503WithoutABodyIsRetriedAfterItsRetryAfter() {
        let reading = HMSAnswer.read(Self.response(503, "", headers: [("retry-after", "4")]), tokens: ["a"])
        guard case .results(let results) = reading, case .retry(_, _, let after)? = results.first else { Issue.record("\(reading)"); return }
        #expect(after == .seconds(4))
    }

    @Test func anUnknownCodeOnA5xxIsRetriedAndOnA4xxFails() {
        #expect(HMSAnswer.read(Self.response(502, #"{"code":"89999999","msg":"gateway"}"#), tokens: ["a"]) == .results([.retry(code: HMSResultCode("89999999"), reason: "gateway")]))
        #expect(HMSAnswer.read(Self.response(400, #"{"code":"89999999","msg":"nope"}"#), tokens: ["a"]) == .results([.failed(code: HMSResultCode("89999999"), reason: "nope")]))
    }

    @Test func aNumericCodeIsReadLikeAString() {
        #expect(HMSAnswer.read(Self.response(200, #"{"code":80000000,"msg":"Success","requestId":"r1"}"#), tokens: ["a"]) == .results([.delivered(providerId: "r1")]))
    }

    @Test(arguments: [
        #"{"success":1,"failure":1,"illegal_tokens":["bad"]}"#,
        #"{"success":1,"failure":1,"illegalTokens":["bad"]}"#,
        #"{"failure":1,"illegalTokens":{"noRight":["bad"]}}"#,
    ])
    func thePartialAnswersListOfIllegalTokensIsReadInEachKnownShape(_ message: String) throws {
        let escaped = String(decoding: try JSONSerialization.data(withJSONObject: [message], options: .fragmentsAllowed), as: UTF8.self).dropFirst().dropLast()
        let body = #"{"code":"80100000","msg":\#(escaped),"requestId":"r2"}"#
        #expect(HMSAnswer.read(Self.response(200, body), tokens: ["good", "bad"]) == .results([
            .delivered(providerId: "r2"), .revoked(code: HMSResultCode("80100000"), reason: "Push Kit lists the token as illegal"),
        ]))
    }

    @Test func aPartialAnswerWhoseListCannotBeReadDeliversEveryTokenRatherThanSendingTwice() {
        #expect(HMSAnswer.read(Self.response(200, #"{"code":"80100000","msg":"partly","requestId":"r3"}"#), tokens: ["a", "b"])
            == .results([.delivered(providerId: "r3"), .delivered(providerId: "r3")]))
    }

    @Test func onlyTheTwoOAuthCodesRefuseTheAccessToken() {
        #expect(HMSAnswer.refusal(Self.response(401, #"{"code":"80200001","msg":"Oauth authentication error"}"#)) != nil)
        #expect(HMSAnswer.refusal(Self.response(401, #"{"code":"80200003","msg":"Oauth token expired"}"#)) != nil)
        #expect(HMSAnswer.refusal(Self.response(403, #"{"code":"80300002","msg":"forbidden"}"#)) == nil)
        #expect(HMSAnswer.refusal(Self.response(401, "")) == nil)
    }
}
