import Foundation
import HeraldModel
import HeraldTestSupport
import Testing

/// The gateway takes what the upstreams really send: Verity's forward per com method and its
/// empty strings, Smart ID's push id with white space around it, Upstra's other message
/// types and long texts, and a Webcom event over 64 KiB; it refuses an APNs token where the
/// app has no APNs account, and a com method Herald cannot push to.
@Suite("Upstream shapes", .needs(.broker))
struct UpstreamShapeTests {
    static func post(_ gateway: GatewayFixture, _ path: String, _ body: [String: Any]) async throws -> GatewayFixture.Answer {
        await gateway.send("POST", "/v1/apps/{app}" + path, body: try JSONSerialization.data(withJSONObject: body))
    }

    /// Verity's FwdMsg (MsgNotifier.scala): one per com method, one msgId, no top-level msgType.
    static func forward(_ sponseeDetails: String, sender: String = "") -> [String: Any] {
        ["msgId": "uid-7", "sponseeDetails": sponseeDetails, "relationshipDid": "LQBHMqdy4W3JvzE5w9VZxm",
         "metaData": ["msgType": "credOffer", "msgSenderName": sender]]
    }

    @Test func eachComMethodsForwardOfOneMessageIsItsOwnEventAndARepeatIsNot() async throws {
        let gateway = try await GatewayFixture()
        var ids: [String] = []
        for details in ["FCM:phone-token", "FCM:tablet-token", "FCM:phone-token"] {
            let answer = try await Self.post(gateway, "/evernym/notify", Self.forward(details))
            #expect(answer.status == 202, "\(answer.json)")
            ids.append(try #require(answer.json["eventId"] as? String))
        }
        #expect(ids[0] != ids[1] && ids[0] == ids[2], "\(ids)")
        #expect(ids.allSatisfy { $0.hasPrefix("evernym:uid-7:") && TextLimits.isEventId(String($0.dropFirst("evernym:".count))) }, "\(ids)")
        try await gateway.waitForEvents("two events") { $0.count == 2 }
        #expect(try await gateway.published().count == 2, "the repeat is not published again")
        await gateway.stop()
    }

    @Test func anEmptySenderNameOrMessageTypeIsAbsent() async throws {
        let gateway = try await GatewayFixture()
        let answer = try await Self.post(gateway, "/evernym/notify", Self.forward("sponsee-1"))
        #expect(answer.status == 202, "\(answer.json)")
        try await gateway.waitForEvents("the event") { $0.count == 1 }
        let event = try #require(try await gateway.published().first)
        #expect(event.data["msgSenderName"] == nil && event.data["msgType"] == "credOffer", "\(event.data)")
        var noType = Self.forward("sponsee-2")
        noType["metaData"] = ["msgType": "", "msgSenderName": ""]
        let accepted = try await Self.post(gateway, "/evernym/notify", noType)
        #expect(accepted.status == 202, "an empty type is a missing type, and pushed with the default template: \(accepted.json)")
        try await gateway.waitForEvents("both events") { $0.count == 2 }
        #expect(try await gateway.published().last?.data["msgType"] == nil)
        await gateway.stop()
    }

    @Test func smartIDsPushIdIsTrimmedAndCarriedInTheData() async throws {
        let gateway = try await GatewayFixture()
        // Smart ID's documented example, its pushId with a leading space.
        let answer = try await Self.post(gateway, "/smartid/push", [
            "messageId": "7bcc1708-be42-48f4-ac67-c76afddae805", "pushId": " 74db355b-ecec-48b4-a4d8-9e6f13084bab", "requestor": "Acme", "type": "AUTH",
        ])
        #expect(answer.status == 202)
        try await gateway.waitForEvents("the event") { $0.count == 1 }
        let event = try #require(try await gateway.published().first)
        #expect(event.audience == .pushIds(["74db355b-ecec-48b4-a4d8-9e6f13084bab"]))
        #expect(event.data["pushId"] == "74db355b-ecec-48b4-a4d8-9e6f13084bab", "\(event.data)")
        let blank = try await Self.post(gateway, "/smartid/push", ["messageId": "m2", "pushId": "   ", "requestor": "Acme", "type": "AUTH"])
        #expect(blank.status == 400 && "\(blank.json)".contains("pushId"))
        await gateway.stop()
    }

    @Test func smartIDProfilesAreTrimmedOnRegistration() async throws {
        let gateway = try await GatewayFixture()
        let answer = try await Self.post(gateway, "/smartid/devices", ["profileID": [" p-1 ", "p-2\n"], "OS": "Android", "deviceID": "fcm-token-1"])
        #expect(answer.status == 200, "\(answer.json)")
        let registration = (answer.json["device"] as? [String: Any])?["registration"] as? [String: Any]
        #expect(registration?["pushIds"] as? [String] == ["p-1", "p-2"], "\(answer.json)")
        await gateway.stop()
    }

    @Test func anUpstraMessageOfAnyTypeAndLengthIsAccepted() async throws {
        let gateway = try await GatewayFixture()
        for message in [["type": "file"], ["type": "text", "text": String(repeating: "a", count: 3000)]] {
            let answer = try await Self.post(gateway, "/upstra/events", [
                "event": "message.created", "channel": ["id": "c", "displayName": "C"], "actor": ["id": "a", "displayName": "A"],
                "message": message, "recipients": ["u"],
            ])
            #expect(answer.status == 202, "\(answer.json)")
        }
        try await gateway.waitForEvents("two events") { $0.count == 2 }
        #expect(try await gateway.published().compactMap { $0.data["messageType"] }.sorted() == ["file", "text"])
        await gateway.stop()
    }

    @Test func anAPNsTokenIsRefusedWhereTheAppHasNoAPNsAccount() async throws {
        let gateway = try await GatewayFixture()
        let token = String(repeating: "ab", count: 32)
        let smartID = try await Self.post(gateway, "/smartid/devices", ["profileID": "p", "OS": "iOS", "deviceID": token])
        #expect(smartID.status == 422 && "\(smartID.json["detail"] ?? "")".contains("no APNs account"), "\(smartID.json)")
        let device = await gateway.send("PUT", "/v1/apps/{app}/devices/d1", body: try JSONSerialization.data(withJSONObject: ["token": token, "os": "ios"]))
        #expect(device.status == 422 && device.json["field"] as? String == "token", "\(device.json)")
        // An FCM token of an iPhone on Firebase is fine.
        let fcm = try await Self.post(gateway, "/smartid/devices", ["profileID": "p", "OS": "iOS", "deviceID": "dXk:APA91bH-ios_on_firebase"])
        #expect(fcm.status == 200, "\(fcm.json)")
        await gateway.stop()
    }

    @Test func aWebcomEventOver64KiBIsAcceptedAndOtherBodiesStillAreNot() async throws {
        let gateway = try await GatewayFixture()
        let value = String(repeating: "x", count: 100_000)
        let webcom = try await Self.post(gateway, "/webcom/events", ["path": "/d", "event": "value.changed", "value": value, "recipients": ["u"]])
        #expect(webcom.status == 202, "\(webcom.json)")
        let email = try await Self.post(gateway, "/email/messages", [
            "emailAddressId": "a", "sudoId": "s", "owner": "o", "messageId": "big", "subject": value, "receivedAt": "2026-11-21T10:00:00Z",
        ])
        #expect(email.status == 413)
        await gateway.stop()
    }

    @Test func aSponseesComMethodMustBeOneHeraldCanPushTo() async throws {
        let gateway = try await GatewayFixture()
        let answer = await gateway.send("PUT", "/v1/apps/{app}/evernym/sponsees/s3", body: Data(#"{"type":3,"value":"{\"sponsorUser\":\"42\"}"}"#.utf8))
        #expect(answer.status == 400 && answer.json["field"] as? String == "value" && "\(answer.json["detail"] ?? "")".contains("FCM:<token>"), "\(answer.json)")
        // The fixture's app has no APNs account: an APNs com method is refused too.
        let apns = await gateway.send("PUT", "/v1/apps/{app}/evernym/sponsees/s3", body: Data(#"{"type":4,"value":"APNS:\#(String(repeating: "ab", count: 32))"}"#.utf8))
        #expect(apns.status == 400, "\(apns.json)")
        let pushable = await gateway.send("PUT", "/v1/apps/{app}/evernym/sponsees/s3", body: Data(#"{"type":3,"value":"FCM:token"}"#.utf8))
        #expect(pushable.status == 200, "\(pushable.json)")
        await gateway.stop()
    }
}
