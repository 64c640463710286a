import Crypto
import _CryptoExtras
import Foundation
import HeraldCrypto
import HeraldModel
import HeraldTestSupport
import Registration
import Testing

/// Device, configuration, preference and settings requests, forwarded as RPC to
/// Registration's and Preferences' command handlers, with their typed replies and errors.
@Suite("Gateway commands", .needs(.broker))
struct CommandForwardingTests {
    @Test func aDeviceIsRegisteredReadAndUnregisteredOnlyByItsUser() async throws {
        let gateway = try await GatewayFixture()
        let key = ["keyId": "k1", "p256dh": Base64URL.encode(P256.KeyAgreement.PrivateKey().publicKey.x963Representation), "auth": Base64URL.encode(Data(repeating: 1, count: 16))]
        let put = await gateway.send("PUT", "/v1/apps/{app}/devices/d1", json: ["platform": "fcm", "token": "tok-1", "os": "ios", "userId": "u1", "locale": "et-EE", "key": key])
        #expect(put.status == 200, "\(put.json)")
        let get = await gateway.send("GET", "/v1/apps/{app}/devices/d1")
        let registration = (get.json["device"] as? [String: Any])?["registration"] as? [String: Any]
        // A token is shown masked outside the provider request.
        #expect(get.status == 200 && registration?["token"] as? String == TokenMask.masked("tok-1") && registration?["userId"] as? String == "u1")
        let wrongUser = await gateway.send("DELETE", "/v1/apps/{app}/devices/d1?userId=u2")
        // Upstra's unregister: "No action is taken otherwise", and the call succeeds, saying so.
        #expect(wrongUser.status == 200 && wrongUser.json["removed"] as? Bool == false && (wrongUser.json["detail"] as? String)?.contains("another user") == true, "\(wrongUser.json)")
        #expect(await gateway.send("GET", "/v1/apps/{app}/devices/d1").status == 200)
        let delete = await gateway.send("DELETE", "/v1/apps/{app}/devices/d1?userId=u1")
        #expect(delete.json["removed"] as? Bool == true)
        let gone = await gateway.send("GET", "/v1/apps/{app}/devices/d1")
        #expect(gone.status == 404 && gone.headers["content-type"]?.hasPrefix("application/problem+json") == true)
        await gateway.stop()
    }

    @Test func eventsDevicesAndStatsAreListedAPageAtATimeWithTokensMasked() async throws {
        let gateway = try await GatewayFixture()
        for (index, user) in ["u1", "u1", "u2"].enumerated() {
            let put = await gateway.send("PUT", "/v1/apps/{app}/devices/d\(index)", json: ["platform": "fcm", "token": "token-\(index)-0123456789abcdef-\(index)", "os": "android", "userId": user])
            #expect(put.status == 200, "\(put.json)")
        }
        // The registry the fixture's Registration answers from: events as its stages log them.
        let store = try SQLiteRegistrationStore(directory: gateway.directory)
        let now = Date()
        try await store.logEvents((0..<3).map { LoggedEvent(app: gateway.app, eventId: "api:e\($0)", source: "api", kind: "chat.message", acceptedAt: now.addingTimeInterval(Double($0) - 10), deliveries: 1) })
        try await store.record([Outcome(deliveryId: "x0", eventId: "api:e0", app: gateway.app, status: .delivered, at: now.addingTimeInterval(-5), platform: .fcm, deviceId: "d0")])

        let first = await gateway.send("GET", "/v1/apps/{app}/events?limit=2")
        let firstEvents = try #require(first.json["events"] as? [[String: Any]], "\(first.json)")
        #expect(firstEvents.map { $0["eventId"] as? String } == ["api:e2", "api:e1"])
        let cursor = try #require(first.json["nextCursor"] as? String)
        let second = await gateway.send("GET", "/v1/apps/{app}/events?limit=2&cursor=\(cursor)")
        #expect((second.json["events"] as? [[String: Any]])?.map { $0["eventId"] as? String } == ["api:e0"] && second.json["nextCursor"] == nil, "\(second.json)")
        let delivered = await gateway.send("GET", "/v1/apps/{app}/events?status=delivered")
        let onlyDelivered = (delivered.json["events"] as? [[String: Any]]) ?? []
        #expect(onlyDelivered.map { $0["eventId"] as? String } == ["api:e0"] && (onlyDelivered.first?["counts"] as? [String: Any])?["delivered"] as? Int == 1)

        let devices = await gateway.send("GET", "/v1/apps/{app}/devices?limit=2")
        let listed = ((devices.json["devices"] as? [[String: Any]]) ?? []).compactMap { $0["registration"] as? [String: Any] }
        #expect(listed.map { $0["deviceId"] as? String } == ["d2", "d1"] && devices.json["nextCursor"] is String, "\(devices.json)")
        #expect(listed.allSatisfy { ($0["token"] as? String)?.contains("0123456789") == false }, "tokens are masked: \(listed)")
        let bySuffix = await gateway.send("GET", "/v1/apps/{app}/devices?tokenSuffix=abcdef-0")
        let found = ((bySuffix.json["devices"] as? [[String: Any]]) ?? [])
        #expect(found.count == 1 && (found.first?["lastOutcome"] as? [String: Any])?["status"] as? String == "delivered", "\(bySuffix.json)")
        let users = await gateway.send("GET", "/v1/apps/{app}/users/u1/devices")
        #expect(((users.json["devices"] as? [[String: Any]]) ?? []).compactMap { ($0["registration"] as? [String: Any])?["deviceId"] as? String } == ["d1", "d0"])

        let stats = await gateway.send("GET", "/v1/apps/{app}/stats?window=15m")
        let window = try #require(stats.json["stats"] as? [String: Any], "\(stats.json)")
        let totals = window["totals"] as? [String: Any]
        #expect(totals?["accepted"] as? Int == 3 && totals?["delivered"] as? Int == 1)
        #expect((15...16).contains((window["minutes"] as? [Any])?.count ?? 0))
        #expect(((window["providers"] as? [[String: Any]]) ?? []).map { $0["platform"] as? String } == ["fcm"])

        for (query, field) in [("events?limit=0", "limit"), ("events?status=lost", "status"), ("events?since=yesterday", "since"),
                               ("events?cursor=bm90IGEgY3Vyc29y", "cursor"), ("devices?tokenSuffix=abc", "tokenSuffix"), ("stats?window=25h", "window")] {
            let refused = await gateway.send("GET", "/v1/apps/{app}/\(query)")
            #expect(refused.status == 400 && refused.json["field"] as? String == field, "\(query): \(refused.json)")
        }
        await gateway.stop()
    }

    @Test func aBadKeyIsRefusedWithTheRegistrysReason() async throws {
        let gateway = try await GatewayFixture()
        let key = ["keyId": "k1", "p256dh": Base64URL.encode(P384.KeyAgreement.PrivateKey().publicKey.x963Representation), "auth": Base64URL.encode(Data(repeating: 1, count: 16))]
        let put = await gateway.send("PUT", "/v1/apps/{app}/devices/d1", json: ["platform": "fcm", "token": "tok-1", "os": "android", "key": key])
        #expect(put.status == 422 && (put.json["detail"] as? String)?.contains("P-384") == true, "\(put.json)")
        let platform = await gateway.send("PUT", "/v1/apps/{app}/devices/d1", json: ["platform": "mpns", "token": "t", "os": "other"])
        #expect(platform.status == 400 && platform.json["field"] as? String == "platform")
        // APNs's rule for its tokens: the hex of 32 to 100 bytes.
        let token = await gateway.send("PUT", "/v1/apps/{app}/devices/d1", json: ["platform": "apns", "token": "t", "os": "ios"])
        #expect(token.status == 400 && token.json["field"] as? String == "token", "\(token.json)")
        await gateway.stop()
    }

    @Test func smartIDEvernymAndEmailRegistrationsReachTheRegistry() async throws {
        let gateway = try await GatewayFixture()
        let smartID = await gateway.send("POST", "/v1/apps/{app}/smartid/devices", json: ["profileID": ["p1", "p2"], "OS": "Android", "deviceID": "fcm-token"])
        #expect(smartID.status == 200 && ((smartID.json["device"] as? [String: Any])?["registration"] as? [String: Any])?["pushIds"] as? [String] == ["p1", "p2"])
        let sponsee = await gateway.send("PUT", "/v1/apps/{app}/evernym/sponsees/s1", json: ["id": "s1", "type": 4, "value": "FCM:tok"])
        #expect(sponsee.status == 200)
        // The path names the sponsee: a body without the SDK's id is the path's sponsee.
        let withoutId = await gateway.send("PUT", "/v1/apps/{app}/evernym/sponsees/s3", json: ["type": 4, "value": "FCM:tok"])
        #expect(withoutId.status == 200 && (withoutId.json["sponsee"] as? [String: Any])?["sponseeId"] as? String == "s3", "\(withoutId.json)")
        let mismatch = await gateway.send("PUT", "/v1/apps/{app}/evernym/sponsees/s1", json: ["id": "s2", "type": 4, "value": "FCM:tok"])
        #expect(mismatch.status == 400 && mismatch.json["field"] as? String == "id")
        let rsa = try _RSA.Encryption.PrivateKey(keySize: .bits2048).publicKey.pemRepresentation
        let address = await gateway.send("PUT", "/v1/apps/{app}/email/addresses/addr-1/key", json: ["keyId": "ak", "publicKey": rsa, "owner": "u1"])
        #expect(address.status == 200 && (address.json["addressKey"] as? [String: Any])?["keyId"] as? String == "ak")
        await gateway.stop()
    }

    @Test func preferencesConfigurationAndSettingsRoundTrip() async throws {
        let gateway = try await GatewayFixture()
        #expect(await gateway.send("PUT", "/v1/apps/{app}/users/u1/preferences", json: ["enabled": false, "mutedKinds": ["sign"]]).status == 200)
        let user = await gateway.send("GET", "/v1/apps/{app}/users/u1/preferences")
        #expect((user.json["user"] as? [String: Any])?["enabled"] as? Bool == false)
        #expect(await gateway.send("PUT", "/v1/apps/{app}/users/u1/channels/c1/preferences", json: ["enabled": false]).status == 200)
        #expect(await gateway.send("GET", "/v1/apps/{app}/users/u1/channels/c1/preferences").json["channelEnabled"] as? Bool == false)
        let configuration = ["entries": [["service": "sudo-email", "enabled": false, "rule": ["field": "sudoId", "value": "s1"]]]]
        // A configuration belongs to a registered device.
        #expect(await gateway.send("PUT", "/v1/apps/{app}/devices/d1/configuration", json: configuration).status == 404)
        #expect(await gateway.send("GET", "/v1/apps/{app}/devices/d1/configuration").status == 404)
        #expect(await gateway.send("PUT", "/v1/apps/{app}/devices/d1", json: ["platform": "fcm", "token": "tok-1", "os": "ios"]).status == 200)
        #expect(await gateway.send("PUT", "/v1/apps/{app}/devices/d1/configuration", json: configuration).status == 200)
        let read = await gateway.send("GET", "/v1/apps/{app}/devices/d1/configuration")
        #expect(((read.json["configuration"] as? [String: Any])?["entries"] as? [Any])?.count == 1)
        // The configuration's ETag guards a write: a stale one is refused 412 and changes nothing.
        let tag = try #require(read.headers["etag"], "\(read.headers)")
        let changed = ["entries": [["service": "sudo-email", "enabled": true]]]
        let written = await gateway.send("PUT", "/v1/apps/{app}/devices/d1/configuration", json: changed, headers: ["If-Match": tag])
        #expect(written.status == 200)
        let newTag = try #require(written.headers["etag"])
        #expect(newTag != tag)
        let stale = await gateway.send("PUT", "/v1/apps/{app}/devices/d1/configuration", json: configuration, headers: ["If-Match": tag])
        #expect(stale.status == 412 && stale.headers["content-type"] == "application/problem+json", "\(stale.status) \(stale.json)")
        #expect(stale.json["title"] as? String == "Precondition Failed")
        let after = await gateway.send("GET", "/v1/apps/{app}/devices/d1/configuration")
        #expect(after.headers["etag"] == newTag && NSDictionary(dictionary: after.json["configuration"] as? [String: Any] ?? [:]).isEqual(to: changed))
        #expect(await gateway.send("DELETE", "/v1/apps/{app}/devices/d1").status == 200)
        #expect(await gateway.send("GET", "/v1/apps/{app}/devices/d1/configuration").status == 404, "gone with its device")
        #expect(await gateway.send("PUT", "/v1/apps/{app}/settings/notifications", json: ["enabled": false]).json["networkEnabled"] as? Bool == false)
        #expect(await gateway.send("GET", "/v1/apps/{app}/settings/notifications").json["networkEnabled"] as? Bool == false)
        await gateway.stop()
    }

    @Test func anEventsStatusListsEachDeliverysLatestOutcomeAndAnUnknownEventIs404() async throws {
        let gateway = try await GatewayFixture()
        let unknown = await gateway.send("GET", "/v1/apps/{app}/events/ev-1")
        #expect(unknown.status == 404 && (unknown.json["detail"] as? String)?.contains("no record of event ev-1") == true, "\(unknown.json)")
        // The registry the fixture's command server reads, as herald-registration's outcome stage writes it.
        let store = try SQLiteRegistrationStore(directory: gateway.directory)
        try await store.markProcessed(app: gateway.app, eventId: "ev-1")
        try await store.record([
            Outcome(deliveryId: "d1", eventId: "ev-1", app: gateway.app, status: .retrying, reason: "UNAVAILABLE", at: Date(timeIntervalSince1970: 1)),
            Outcome(deliveryId: "d1", eventId: "ev-1", app: gateway.app, status: .delivered, at: Date(timeIntervalSince1970: 2)),
            Outcome(deliveryId: "d2", eventId: "ev-1", app: gateway.app, status: .filtered, reason: "filtered by channel", at: Date(timeIntervalSince1970: 2)),
        ])
        let known = await gateway.send("GET", "/v1/apps/{app}/events/ev-1")
        let event = known.json["event"] as? [String: Any]
        let deliveries = event?["deliveries"] as? [[String: Any]] ?? []
        #expect(known.status == 200 && event?["resolved"] as? Bool == true, "\(known.json)")
        #expect(deliveries.map { "\($0["deliveryId"] ?? "") \($0["status"] ?? "") \($0["updates"] ?? "")" } == ["d1 delivered 2", "d2 filtered 1"])
        await gateway.stop()
    }

    @Test func anEventJustAcceptedIsKnownBeforeRegistrationResolvesIt() async throws {
        let gateway = try await GatewayFixture()
        let body = Data(#"{"messageId":"just-now","pushId":"p","requestor":"r","type":"AUTH"}"#.utf8)
        #expect(await gateway.send("POST", "/v1/apps/{app}/smartid/push", body: body).status == 202)
        // Nothing resolves it here (the fixture only collects events): accepted, not yet resolved.
        let id = smartIDEventId(messageId: "just-now", pushId: "p")
        let status = await gateway.send("GET", "/v1/apps/{app}/events/\(id)")
        let event = status.json["event"] as? [String: Any]
        #expect(status.status == 200, "\(status.json)")
        #expect(event?["eventId"] as? String == id && event?["resolved"] as? Bool == false)
        #expect((event?["deliveries"] as? [Any])?.isEmpty == true)
        #expect(await gateway.send("GET", "/v1/apps/{app}/events/smartid:never-sent").status == 404)
        await gateway.stop()
    }

    @Test func theStatusKeepsProviderAndOAuthTextOutButHeraldsOwnReasonsIn() async throws {
        let gateway = try await GatewayFixture()
        let store = try SQLiteRegistrationStore(directory: gateway.directory)
        try await store.markProcessed(app: gateway.app, eventId: "ev-2")
        let at = Date(timeIntervalSince1970: 5)
        try await store.record([
            Outcome(deliveryId: "d1", eventId: "ev-2", app: gateway.app, status: .failed,
                    reason: "OAuth token request failed: invalid_grant: Invalid JWT Signature for svc@project.iam", providerCode: "oauth", at: at),
            Outcome(deliveryId: "d2", eventId: "ev-2", app: gateway.app, status: .retrying,
                    reason: "Internal error encountered at fcm-frontend-7; attempt 2 in 2s", providerCode: "INTERNAL", at: at),
            Outcome(deliveryId: "d3", eventId: "ev-2", app: gateway.app, status: .delivered, reason: "projects/p-1/messages/0:123", at: at),
            Outcome(deliveryId: "d4", eventId: "ev-2", app: gateway.app, status: .filtered, reason: "filtered by channel", at: at),
            Outcome(deliveryId: "d5", eventId: "ev-2", app: gateway.app, status: .failed, reason: "encryption required and no key for addr-1", at: at),
        ])
        let answer = await gateway.send("GET", "/v1/apps/{app}/events/ev-2")
        let deliveries = (answer.json["event"] as? [String: Any])?["deliveries"] as? [[String: Any]] ?? []
        let reasons = Dictionary(uniqueKeysWithValues: deliveries.map { ($0["deliveryId"] as? String ?? "", $0["reason"] as? String) })
        #expect(reasons.count == 5, "\(answer.json)")
        for leaked in ["invalid_grant", "JWT", "svc@project", "fcm-frontend", "projects/p-1"] {
            #expect(!String(decoding: answer.body, as: UTF8.self).contains(leaked), "the public status shows \(leaked)")
        }
        #expect(reasons["d1"] == "the provider refused the delivery" && reasons["d2"] == "the provider could not take it now; it will be tried again")
        #expect(reasons["d3"] == .some(nil))
        #expect(reasons["d4"] == "filtered by channel" && reasons["d5"] == "encryption required and no key for addr-1")
        #expect(deliveries.first { $0["deliveryId"] as? String == "d1" }?["providerCode"] as? String == "oauth")
        await gateway.stop()
    }

    @Test func noCommandServerAnswers503() async throws {
        let gateway = try await GatewayFixture(commandTimeout: .milliseconds(500), commandServers: false)
        let answer = await gateway.send("GET", "/v1/apps/{app}/devices/d1")
        #expect(answer.status == 503 && answer.headers["retry-after"] == "5", "\(answer.json)")
        await gateway.stop()
    }
}
