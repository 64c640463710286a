import Foundation
import HeraldTestSupport
import HeraldStackTestSupport
import HeraldModel
import Testing
import Webhook

/// The forward's body: an upstream's message the gateway kept comes out as JSON, as sent.
struct WebhookPayloadTests {
    @Test func anUpstreamsMessageKeptInTheContextIsForwardedAsItWasSent() throws {
        let sent = #"{"metaData":{"msgSenderName":"Faber College","msgType":"credOffer","n":4,"ok":true},"msgId":"m-1","msgType":"credOffer","relationshipDid":"did:sov:s3","sponseeDetails":"s3"}"#
        var request = TestSandbox.forward()
        request.forward?.source = .evernym
        request.forward?.context = ["sponseeId": "s3", DispatchRequest.WebhookForward.upstreamMessageKey: sent]
        let body = try #require(WebhookPayload(request)).body()
        let data = try #require((try JSONSerialization.jsonObject(with: body) as? [String: Any])?["data"] as? [String: Any])
        let forwarded = try #require(data["forwarded"] as? [String: Any])
        let expected = try #require(try JSONSerialization.jsonObject(with: Data(sent.utf8)) as? [String: Any])
        #expect(NSDictionary(dictionary: forwarded).isEqual(to: expected), "\(forwarded)")
        #expect(String(decoding: body, as: UTF8.self).contains(#""n":4,"#), "an integer stays an integer")
        #expect(data["context"] as? [String: String] == ["sponseeId": "s3"])
    }

    @Test func aForwardWithoutAnUpstreamsMessageHasNoForwardedField() throws {
        let body = try #require(WebhookPayload(TestSandbox.forward())).body()
        let data = try #require((try JSONSerialization.jsonObject(with: body) as? [String: Any])?["data"] as? [String: Any])
        #expect(data["forwarded"] == nil)
    }
}
