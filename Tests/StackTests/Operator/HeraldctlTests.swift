import _CryptoExtras
import Foundation
import HeraldDomain
import HeraldModel
import HeraldProviders
import HeraldTestSupport
import HeraldStackTestSupport
import Messaging
import ServiceKit
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `heraldctl`, the built executable, against the real broker and the real services: each
/// command as an operator would run it, the broker, gateway and key from the environment.
extension ServiceProcesses {
    @Suite("heraldctl")
    struct HeraldctlTests {
        /// Runs heraldctl with the stack's broker, gateway, app and key in its environment.
        static func heraldctl(_ stack: HeraldStack, _ arguments: String...) async throws -> (status: Int32, output: String) {
            try await run(stack, arguments)
        }

        static func run(_ stack: HeraldStack, _ arguments: [String]) async throws -> (status: Int32, output: String) {
            let binary = ServiceProcess.binaryDirectory.appendingPathComponent("heraldctl").path
            return try await runCommand("env", [
                "HERALD_AMQP_URL=\(TestBroker.urlString)", "HERALD_MANAGEMENT_URL=\(TestBroker.managementURL)", "HERALD_GATEWAY_URL=http://127.0.0.1:\(stack.gateway.port)",
                "HERALD_API_KEY=\(stack.key)", "HERALD_APP=\(stack.app)", binary,
            ] + arguments)
        }

        /// heraldctl with `--json`, which must succeed; its JSON answer.
        static func json(_ stack: HeraldStack, _ arguments: String...) async throws -> [String: Any] {
            let (status, output) = try await run(stack, arguments + ["--json"])
            guard status == 0 else { throw TestFailure("heraldctl \(arguments.joined(separator: " ")) exited \(status): \(output)") }
            guard let object = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any] else {
                throw TestFailure("heraldctl \(arguments.joined(separator: " ")) printed no JSON object: \(output)")
            }
            return object
        }

        /// A dispatch request for `token` under the stack's app, valid for an hour, as a file.
        static func dispatchRequestFile(_ stack: HeraldStack, token: String, deliveryId: String) throws -> String {
            let now = Date()
            let request: [String: Any] = [
                "app": stack.app, "attempt": 1, "deliveryId": deliveryId, "deviceId": "ctl-device", "eventId": "api:\(deliveryId)",
                "expiresAt": HeraldJSON.formatTimestamp(now.addingTimeInterval(3600)), "firstAttemptAt": HeraldJSON.formatTimestamp(now),
                "kind": "test", "os": "android", "platform": "fcm", "priority": "high", "token": token, "ttlSeconds": 3600,
                "data": ["herald": "1", "event": "api:\(deliveryId)", "kind": "test"],
            ]
            let file = stack.sandbox.directory.appendingPathComponent("\(deliveryId).json")
            try JSONSerialization.data(withJSONObject: request).write(to: file)
            return file.path
        }

        @Test("publish declares Herald's queues with HERALD_QUORUM_REPLICAS, as the services of a cluster declared them")
        func publishesOntoAClusterTopology() async throws {
            // A virtual host of its own, so that no other test's queues carry other arguments.
            let vhost = "herald-ctl-quorum-\(UUID().uuidString.prefix(8))"
            _ = try await TestBroker.rabbitmqctl("add_vhost", vhost)
            do {
                let broker = TestBroker.url
                _ = try await TestBroker.rabbitmqctl("set_permissions", "-p", vhost, broker.user, ".*", ".*", ".*")
                let url = "amqp://\(broker.user):\(broker.password)@\(broker.host):\(broker.port)/\(vhost)"
                // The services of a three-node cluster (HERALD_QUORUM_REPLICAS=3) declared the topology first.
                let services = Publisher(configuration: ConnectionConfiguration(
                    url: try AMQPURL(url), name: "cluster-services", topology: HeraldTopology.all(.herald).replicated(3)))
                let declared = await services.waitUntilConnected(timeout: .seconds(20))
                await services.close(timeout: .seconds(2))
                #expect(declared, "the services' topology was not declared")
                let event = #"{"id":"api:ctl-quorum","source":"api","kind":"news","app":"demo","audience":{"users":["u"]},"data":{"a":"b"},"occurredAt":"2026-11-27T10:00:00Z"}"#
                let binary = ServiceProcess.binaryDirectory.appendingPathComponent("heraldctl").path
                let published = try await runCommand("env", ["HERALD_AMQP_URL=\(url)", "HERALD_QUORUM_REPLICAS=3", binary, "publish", "event", "--json-body", event, "--json"])
                #expect(published.status == 0, "heraldctl exited \(published.status): \(published.output)")
            } catch {
                Issue.record(error)
            }
            _ = try await TestBroker.rabbitmqctl("delete_vhost", vhost)
        }

        /// While a cluster node fails over, the broker refuses publishes to a quorum queue for
        /// a while; heraldctl keeps offering the message rather than failing at once.
        @Test("publish waits out a broker that refuses the event for a while")
        func publishWaitsOutRefusals() async throws {
            let vhost = "herald-ctl-refused-\(UUID().uuidString.prefix(8))"
            _ = try await TestBroker.rabbitmqctl("add_vhost", vhost)
            do {
                let broker = TestBroker.url
                _ = try await TestBroker.rabbitmqctl("set_permissions", "-p", vhost, broker.user, ".*", ".*", ".*")
                let url = "amqp://\(broker.user):\(broker.password)@\(broker.host):\(broker.port)/\(vhost)"
                let queue = HeraldTopology.Queue.registrationEvents.name
                _ = try await TestBroker.rabbitmqctl(
                    "set_policy", "-p", vhost, "--apply-to", "queues", "full", "^\(queue.replacingOccurrences(of: ".", with: "\\."))$",
                    #"{"max-length":0,"overflow":"reject-publish"}"#)
                // The queue takes messages until it holds more than its limit: fill it until it refuses.
                let filler = Publisher(configuration: ConnectionConfiguration(url: try AMQPURL(url), name: "ctl-filler", topology: HeraldTopology.all(.herald)), nackAttempts: 1)
                var refused = false
                for index in 0..<5 where !refused {
                    do {
                        try await filler.publish(OutgoingMessage(exchange: "", routingKey: queue, body: Data("filler".utf8), properties: MessageProperties(messageId: "filler-\(index)")))
                    } catch let error as MessagingError where error.reason == .publishRejected {
                        refused = true
                    }
                }
                await filler.close(timeout: .seconds(2))
                #expect(refused, "the queue over its limit refused nothing")
                let event = #"{"id":"api:ctl-refused","source":"api","kind":"news","app":"demo","audience":{"users":["u"]},"data":{"a":"b"},"occurredAt":"2026-11-27T10:00:00Z"}"#
                let binary = ServiceProcess.binaryDirectory.appendingPathComponent("heraldctl").path
                let publishing = Task { try await runCommand("env", ["HERALD_AMQP_URL=\(url)", binary, "publish", "event", "--json-body", event, "--json"]) }
                // The refusals last longer than the 1.5 s a service's publisher offers a message for.
                try await Task.sleep(for: .seconds(4))
                _ = try await TestBroker.rabbitmqctl("clear_policy", "-p", vhost, "full")
                _ = try await TestBroker.rabbitmqctl("purge_queue", "-p", vhost, queue)
                let published = try await within(.seconds(60), "heraldctl publish to end once the queue takes messages again") { try await publishing.value }
                #expect(published.status == 0, "heraldctl exited \(published.status): \(published.output)")
            } catch {
                Issue.record(error)
            }
            _ = try await TestBroker.rabbitmqctl("delete_vhost", vhost)
        }

        @Test("publish: a contract published straight to the broker is consumed and delivered; an invalid one is refused with its field and reason")
        func publishedContractsAreDeliveredAndInvalidOnesRefused() async throws {
            let stack = try await HeraldStack.start()
            do {
                let token = "ctl-publish-\(UUID().uuidString.prefix(8))"
                let event = #"{"id":"api:ctl-1","source":"api","kind":"news","app":"\#(stack.app)","audience":{"tokens":[{"platform":"fcm","token":"\#(token)"}]},"data":{"a":"b"},"occurredAt":"2026-11-25T10:00:00Z"}"#
                let published = try await Self.json(stack, "publish", "event", "--json-body", event)
                #expect(published["exchange"] as? String == "herald.events" && published["routingKey"] as? String == "api.news")
                try await eventually(timeout: .seconds(30), "the published event's push") { !stack.received(token).isEmpty }
                #expect((stack.received(token)[0]["data"] as? [String: String])?["a"] == "b")

                // Three copies are three events (ids -1, -2, -3), each delivered.
                let copies = "ctl-copies-\(UUID().uuidString.prefix(8))"
                let many = event.replacingOccurrences(of: token, with: copies).replacingOccurrences(of: "api:ctl-1", with: "api:ctl-many")
                let counted = try await Self.json(stack, "publish", "herald.event.v1", "--json-body", many, "--count", "3", "--rate", "100")
                #expect(counted["published"] as? Int == 3)
                try await eventually(timeout: .seconds(30), "three pushes") { stack.received(copies).count == 3 }

                let invalid = event.replacingOccurrences(of: #""occurredAt""#, with: #""options":{"ttlSeconds":-5},"occurredAt""#)
                let refused = try await Self.heraldctl(stack, "publish", "event", "--json-body", invalid)
                #expect(refused.status == 65, "invalid input: \(refused.output)")
                #expect(refused.output.contains("ttlSeconds"), "names the field: \(refused.output)")
                let unknown = try await Self.heraldctl(stack, "publish", "herald.nothing.v1", "--json-body", "{}")
                #expect(unknown.status == 65 && unknown.output.contains("herald.event.v1"), "\(unknown.output)")
                try await stack.stop()
            } catch {
                await stack.discard()
                throw error
            }
        }

        @Test("client-token mints an HS256 or ES256 token the gateway takes for its user alone; a ttl past maxLifetime is refused")
        func clientTokenMintsATokenTheGatewayTakes() async throws {
            let stack = try await HeraldStack.start(dispatchers: 0, hmsDispatchers: 0)
            do {
                let config = try #require(stack.environment["HERALD_CONFIG"])
                let keyFile = stack.sandbox.directory.appendingPathComponent("client-token-private.pem")
                try Data(stack.clientTokenPrivateKeyPEM.utf8).write(to: keyFile)
                for signing in [[], ["--es256-key", keyFile.path]] {
                    let minted = try await Self.run(stack, ["client-token", "--config", config, "--app", stack.app, "--user", "ctl-user", "--push-id", "p-1", "--json"] + signing)
                    #expect(minted.status == 0, "\(minted.output)")
                    let token = try #require((try JSONSerialization.jsonObject(with: Data(minted.output.utf8)) as? [String: Any])?["token"] as? String)
                    #expect(await stack.call("PUT", "/users/ctl-user/preferences", ["enabled": true], bearer: token).status == 200, "\(signing)")
                    #expect(await stack.call("GET", "/users/someone-else/preferences", bearer: token).status == 403, "\(signing)")
                    #expect(await stack.call("POST", "/smartid/devices", ["profileID": "p-1", "OS": "Android", "deviceID": "ctl-sid-\(signing.count)"], bearer: token).status == 200)
                }
                let tooLong = try await Self.run(stack, ["client-token", "--config", config, "--app", stack.app, "--user", "u", "--ttl", "3601"])
                #expect(tooLong.status == 65 && tooLong.output.contains("maxLifetime"), "\(tooLong)")
                try await stack.stop()
            } catch {
                await stack.discard()
                throw error
            }
        }

        @Test("ingest create prints a URL that takes its source's requests with no header; list shows fingerprints only; rotate and revoke; new prints an apps-file line")
        func ingestURLsThroughHeraldctl() async throws {
            let stack = try await HeraldStack.start(dispatchers: 1, hmsDispatchers: 0)
            do {
                let made = try await Self.json(stack, "ingest", "create", "--id", "ctl-verity", "--source", "evernym", "--network", "127.0.0.0/8")
                let url = try #require(made["url"] as? String)
                let secret = try #require(made["secret"] as? String)
                #expect(url.hasPrefix("http://127.0.0.1:\(stack.gateway.port)/v1/ingest/hgi_") && url.hasSuffix("/evernym/notify"), "\(made)")
                var request = URLRequest(url: URL(string: url)!)
                request.httpMethod = "POST"
                request.httpBody = try JSONSerialization.data(withJSONObject: ["msgId": "ctl-1", "msgType": "credOffer", "sponseeDetails": "FCM:ctl-ingest-token", "relationshipDid": "d"])
                let (_, response) = try await URLSession.shared.data(for: request)
                #expect((response as? HTTPURLResponse)?.statusCode == 202)
                try await eventually(timeout: .seconds(60), "the forward pushed") { !stack.received("ctl-ingest-token").isEmpty }
                let listed = try await Self.heraldctl(stack, "ingest", "list")
                #expect(listed.status == 0 && listed.output.contains("ctl-verity") && listed.output.contains("127.0.0.0/8") && !listed.output.contains(secret), "\(listed)")
                let rotated = try await Self.json(stack, "ingest", "rotate", "ctl-verity")
                #expect((rotated["secrets"] as? [Any])?.count == 2, "\(rotated)")
                let revoked = try await Self.heraldctl(stack, "ingest", "revoke", "ctl-verity", "--secret", try #require(made["fingerprint"] as? String))
                #expect(revoked.status == 0, "\(revoked)")
                let (_, again) = try await URLSession.shared.data(for: request)
                #expect((again as? HTTPURLResponse)?.statusCode == 404, "the revoked secret")
                #expect(try await Self.heraldctl(stack, "ingest", "revoke", "no-such-url").status == 2)
                let line = try await Self.json(stack, "ingest", "new", "--id", "file-verity", "--source", "smartid")
                let sha = try #require(line["sha256"] as? String)
                #expect((line["line"] as? String)?.contains("sha256: \(sha)") == true && (line["path"] as? String)?.hasSuffix("/smartid/push") == true, "\(line)")
                #expect(try await Self.heraldctl(stack, "ingest", "new", "--id", "x", "--source", "nowhere").status == 65)
                try await stack.stop()
            } catch {
                await stack.discard()
                throw error
            }
        }

        @Test("devices register: an APNs device registered without --os is an iPhone, not an Android phone")
        func anAPNsDeviceRegisteredWithoutAnOSIsAnIPhone() async throws {
            let stack = try await HeraldStack.start(dispatchers: 0, hmsDispatchers: 0, apnsDispatchers: 1)
            do {
                _ = try await Self.json(stack, "devices", "register", "ctl-iphone", "--platform", "apns", "--token", TestSandbox.apnsToken())
                let shown = try await Self.json(stack, "devices", "show", "ctl-iphone")
                let registration = (shown["device"] as? [String: Any])?["registration"] as? [String: Any] ?? [:]
                #expect(registration["os"] as? String == "ios", "\(shown)")
                #expect(registration["platform"] as? String == "apns", "\(shown)")
                try await stack.stop()
            } catch {
                await stack.discard()
                throw error
            }
        }

        @Test("devices, send and status: a device registered with heraldctl gets each integration's sample event, whose status shows it delivered; removed, it is gone")
        func devicesSendAndStatus() async throws {
            let stack = try await HeraldStack.start()
            do {
                let token = "ctl-device-token"
                _ = try await Self.json(stack, "devices", "register", "ctl-phone", "--platform", "fcm", "--token", token,
                                        "--os", "android", "--user", "ctl-user", "--push-id", "ctl-push")
                let shown = try await Self.json(stack, "devices", "show", "ctl-phone")
                // The gateway shows a token masked (its first and last six characters).
                #expect(String(describing: shown).contains(TokenMask.masked(token)) && !String(describing: shown).contains(token), "\(shown)")

                // Smart ID by push id; chat, data sync, CloudEvents and the canonical event by user.
                var sent = 0
                for (integration, option, value) in [("smartid", "--push-id", "ctl-push"), ("chat", "--user", "ctl-user"), ("datasync", "--user", "ctl-user"),
                                                     ("cloudevents", "--user", "ctl-user"), ("event", "--user", "ctl-user")] {
                    let answer = try await Self.heraldctl(stack, "send", integration, option, value)
                    #expect(answer.status == 0, "\(integration): \(answer.output)")
                    let eventId = answer.output.trimmingCharacters(in: .whitespacesAndNewlines)
                    sent += 1
                    try await eventually(timeout: .seconds(30), "the \(integration) sample delivered") { [sent] in stack.received(token).count == sent }
                    try await eventually(timeout: .seconds(30), "\(eventId)'s status delivered") {
                        let status = try await Self.json(stack, "status", eventId)
                        let deliveries = (status["event"] as? [String: Any])?["deliveries"] as? [[String: Any]] ?? []
                        return deliveries.count == 1 && deliveries[0]["status"] as? String == "delivered"
                    }
                }
                // Sponsor: a type-4 sponsee; email: an address key and its owner's device.
                try await stack.expectOK("PUT", "/evernym/sponsees/ctl-sponsee", ["id": "ctl-sponsee", "type": 4, "value": "FCM:ctl-sponsee-token"])
                #expect(try await Self.heraldctl(stack, "send", "sponsor", "--sponsee", "ctl-sponsee").status == 0)
                try await eventually(timeout: .seconds(30), "the sponsor sample") { !stack.received("ctl-sponsee-token").isEmpty }
                let addressKey = try _RSA.Encryption.PrivateKey(keySize: .bits2048)
                try await stack.expectOK("PUT", "/email/addresses/ctl-address/key", ["keyId": "ctl-rsa", "publicKey": addressKey.publicKey.pemRepresentation, "owner": "ctl-user"])
                try await stack.enableEmail(deviceId: "ctl-phone")
                #expect(try await Self.heraldctl(stack, "send", "email", "--address", "ctl-address", "--user", "ctl-user").status == 0)
                try await eventually(timeout: .seconds(30), "the email sample") { [sent] in stack.received(token).count == sent + 1 }
                #expect((stack.received(token).last?["data"] as? [String: String])?["enc"] == "jwe")

                let missing = try await Self.heraldctl(stack, "send", "smartid")
                #expect(missing.status == 65 && missing.output.contains("--push-id"), "\(missing.output)")
                let unknownEvent = try await Self.heraldctl(stack, "status", "api:never-sent")
                #expect(unknownEvent.status == 2, "not found: \(unknownEvent.output)")

                _ = try await Self.json(stack, "devices", "remove", "ctl-phone", "--user", "ctl-user")
                let gone = try await Self.heraldctl(stack, "devices", "show", "ctl-phone")
                #expect(gone.status == 2, "a removed device is not found: \(gone.output)")
                try await stack.stop()
            } catch {
                await stack.discard()
                throw error
            }
        }

        @Test("queues shows the depth of what was published to a stopped consumer; a dead letter is listed with its reason, replayed and delivered, and purged only when confirmed")
        func queuesAndDeadLetters() async throws {
            let stack = try await HeraldStack.start()
            do {
                try await stack.dispatchers[0].terminate()
                try await TestBroker.admin.purge(HeraldTopology.Queue.dispatch(.fcm).name)
                let waiting = try Self.dispatchRequestFile(stack, token: "ctl-waiting", deliveryId: "ctl-waiting-\(UUID().uuidString.prefix(8))")
                _ = try await Self.json(stack, "publish", "dispatch", "--file", waiting, "--count", "7")
                let queues = try await Self.json(stack, "queues")
                let fcm = (queues["queues"] as? [[String: Any]])?.first { $0["name"] as? String == "dispatch.fcm" }
                #expect(fcm?["ready"] as? Int == 7 && fcm?["consumers"] as? Int == 0, "\(fcm ?? [:])")
                let names = Set((queues["queues"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String })
                #expect(names.contains("retry.fcm.1s") && names.contains("dead-letters"), "the delay tiers and dead letters too")
                #expect(queues["management"] as? Bool == true, "the test broker runs the management plugin")
                try await TestBroker.admin.purge(HeraldTopology.Queue.dispatch(.fcm).name)

                // A request that expires in the queue while no dispatcher runs is dead-lettered by the broker.
                let id = "ctl-dead-\(UUID().uuidString.prefix(8))"
                let file = try Self.dispatchRequestFile(stack, token: "ctl-replayed", deliveryId: id)
                _ = try await Self.json(stack, "publish", "dispatch", "--file", file, "--expiration", "1")
                try await eventually(timeout: .seconds(30), "the expired request among the dead letters") {
                    let list = try await Self.json(stack, "dead-letters", "list")
                    return ((list["deadLetters"] as? [[String: Any]]) ?? []).contains { $0["id"] as? String == "\(id)#1" }
                }
                let list = try await Self.json(stack, "dead-letters", "list")
                let letter = (list["deadLetters"] as? [[String: Any]])?.first { $0["id"] as? String == "\(id)#1" } ?? [:]
                #expect((letter["reason"] as? String)?.hasPrefix("expired in dispatch.fcm") == true, "\(letter)")
                #expect(letter["exchange"] as? String == "herald.dispatch" && letter["routingKey"] as? String == "fcm")
                let shown = try await Self.json(stack, "dead-letters", "show", "\(id)#1")
                #expect((shown["body"] as? String)?.contains("ctl-replayed") == true)

                let dispatcher = try ServiceProcess("herald-fcm", environment: stack.environment)
                defer { dispatcher.discard() }
                try await dispatcher.waitUntilReady()
                let replayed = try await Self.json(stack, "dead-letters", "replay", "\(id)#1")
                #expect((replayed["replayed"] as? [[String: Any]])?.count == 1)
                try await eventually(timeout: .seconds(30), "the replayed request delivered") { !stack.received("ctl-replayed").isEmpty }
                let after = try await Self.json(stack, "dead-letters", "list")
                #expect(!((after["deadLetters"] as? [[String: Any]]) ?? []).contains { $0["id"] as? String == "\(id)#1" }, "a replayed letter leaves the queue")

                // Purge asks first: without an answer nothing is purged (exit 3); with --yes it is.
                try await dispatcher.terminate()
                let other = "ctl-purged-\(UUID().uuidString.prefix(8))"
                _ = try await Self.json(stack, "publish", "dispatch", "--file", try Self.dispatchRequestFile(stack, token: "ctl-purged", deliveryId: other), "--expiration", "1")
                try await eventually(timeout: .seconds(30), "the second dead letter") {
                    let list = try await Self.json(stack, "dead-letters", "list")
                    return ((list["deadLetters"] as? [[String: Any]]) ?? []).contains { $0["id"] as? String == "\(other)#1" }
                }
                let declined = try await Self.heraldctl(stack, "dead-letters", "purge", "\(other)#1")
                #expect(declined.status == 3, "not confirmed: \(declined.output)")
                let kept = try await Self.json(stack, "dead-letters", "list")
                #expect(((kept["deadLetters"] as? [[String: Any]]) ?? []).contains { $0["id"] as? String == "\(other)#1" })
                let purged = try await Self.json(stack, "dead-letters", "purge", "\(other)#1", "--yes")
                #expect(purged["purged"] as? Int == 1)
                let left = try await Self.json(stack, "dead-letters", "list")
                #expect(!((left["deadLetters"] as? [[String: Any]]) ?? []).contains { $0["id"] as? String == "\(other)#1" })
                try await stack.stop()
            } catch {
                await stack.discard()
                throw error
            }
        }

        @Test("an unreachable broker or gateway is exit 69 with what could not be reached")
        func unreachable() async throws {
            let binary = ServiceProcess.binaryDirectory.appendingPathComponent("heraldctl").path
            let port = try freePort()
            let broker = try await runCommand(binary, ["queues", "--amqp-url", "amqp://guest:guest@127.0.0.1:\(port)/"])
            #expect(broker.status == 69 && broker.output.contains("cannot reach the broker"), "\(broker.output)")
            let gateway = try await runCommand(binary, ["status", "api:x", "--gateway-url", "http://127.0.0.1:\(port)", "--api-key", "k", "--app", "a"])
            #expect(gateway.status == 69 && gateway.output.contains("cannot reach the gateway"), "\(gateway.output)")
        }
    }
}
