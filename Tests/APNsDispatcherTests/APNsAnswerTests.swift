import APNs
import DispatchKit
import Foundation
import HTTPTransport
import Testing

/// Apple's answers, as its documentation shows them (`Fixtures/apple-answers.json`, source
/// named there), read by the dispatcher's table: delivered, revoked (a 410 since its
/// `timestamp`), retried (honouring `Retry-After`) or failed with Apple's reason.
struct APNsAnswerTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var status: Int
        var headers: [String: String]
        var body: Data
        var reason: String?
        var result: String
        var invalidSince: Double?
        var retryAfter: Int?
        var testDescription: String { "\(status) \(reason ?? "")" }
    }

    static let cases: [Case] = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/apple-answers.json")
        guard let data = try? Data(contentsOf: url),
              let root = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any],
              let answers = root["answers"] as? [[String: Any]] else { return [] }
        return answers.map { answer in
            let body = answer["body"] as? [String: Any]
            return Case(
                status: answer["status"] as? Int ?? 0, headers: answer["headers"] as? [String: String] ?? [:],
                body: body.flatMap { try? JSONSerialization.data(withJSONObject: $0) } ?? Data(),
                reason: body?["reason"] as? String, result: answer["result"] as? String ?? "",
                invalidSince: (answer["invalidSince"] as? NSNumber)?.doubleValue, retryAfter: answer["retryAfter"] as? Int)
        }
    }()

    @Test func theFixtureHoldsApplesAnswers() {
        #expect(Self.cases.count >= 20)
    }

    @Test(arguments: cases)
    func eachAnswerMeansWhatAppleSays(_ answer: Case) {
        let response = HTTPResponse(status: answer.status, headers: answer.headers.map { ($0.key, $0.value) }, body: answer.body, httpVersion: "2")
        let result = APNsAnswer.result(response)
        switch (answer.result, result) {
        case ("delivered", .delivered(let id)):
            #expect(id == answer.headers["apns-id"])
        case ("revoked", .revoked(let code, _, let since)):
            #expect(code.raw == answer.reason)
            #expect(since?.timeIntervalSince1970 == answer.invalidSince)
        case ("retry", .retry(let code, _, let after)):
            #expect(code.raw == answer.reason)
            #expect(after == answer.retryAfter.map { .seconds($0) })
        case ("failed", .failed(let code, _)):
            #expect(code.raw == answer.reason, "Apple's reason is the code")
        default:
            Issue.record("\(answer.status) \(answer.reason ?? "") should be \(answer.result), is \(result)")
        }
    }

    @Test func aRefusedProviderTokenIsRenewedNotFailed() {
        for reason in ["ExpiredProviderToken", "InvalidProviderToken", "MissingProviderToken"] {
            let response = HTTPResponse(status: 403, headers: [], body: Data(#"{"reason":"\#(reason)"}"#.utf8), httpVersion: "2")
            #expect(APNsAnswer.refusal(response) == reason)
        }
        #expect(APNsAnswer.refusal(HTTPResponse(status: 403, headers: [], body: Data(#"{"reason":"Forbidden"}"#.utf8), httpVersion: "2")) == nil)
    }
}
