import Foundation
import HeraldTestSupport
import Testing

/// The apps file changed under running services: the gateway takes new keys and drops
/// removed ones without a restart, keeps its configuration when the new file is broken, and
/// no service is ended by `SIGHUP`.
extension ServiceProcesses {
    @Suite("The apps file read again without a restart")
    struct AppsReloadTests {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-reload-\(UUID().uuidString)")
        let app = "reload-\(UUID().uuidString.prefix(6).lowercased())"
        var file: URL { directory.appendingPathComponent("herald.yaml") }

        func write(keys: [String: String]) throws {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let lines = keys.sorted { $0.key < $1.key }.map { "      - { id: \($0.key), \($0.value) }" }
            try Data("apps:\n  \(app):\n    apiKeys:\n\(lines.joined(separator: "\n"))\n".utf8).write(to: file, options: .atomic)
        }

        func status(_ port: Int, key: String) async -> Int {
            await postEmptyEvent(port: port, app: app, key: key)
        }

        @Test("the gateway takes an added key and refuses a removed one within seconds, and keeps its keys when the new file is broken")
        func gatewayFollowsTheFile() async throws {
            defer { try? FileManager.default.removeItem(at: directory) }
            let (first, second, third) = ("key-a-\(UUID())", "key-b-\(UUID())", "key-c-\(UUID())")
            try write(keys: ["a": "sha256: \(HeraldStack.sha256Hex(first))"])
            let gateway = try ServiceProcess("herald-gateway", environment: ["HERALD_CONFIG": file.path])
            defer { gateway.discard() }
            try await gateway.waitUntilReady()
            #expect(await status(gateway.port, key: first) == 400)
            #expect(await status(gateway.port, key: second) == 401)

            // The file rewritten, no signal: the change is seen by itself.
            try write(keys: ["b": "sha256: \(HeraldStack.sha256Hex(second))"])
            try await eventually(timeout: .seconds(30), "the added key taken") { await status(gateway.port, key: second) == 400 }
            #expect(await status(gateway.port, key: first) == 401, "the removed key refused")

            // A broken file is refused, logged, and changes nothing.
            try Data("apps:\n  \(app):\n    apiKeys: [ {".utf8).write(to: file, options: .atomic)
            try await eventually(timeout: .seconds(30), "the broken file refused") {
                gateway.logText().contains("apps file refused; the previous configuration stays")
            }
            #expect(await status(gateway.port, key: second) == 400, "the previous keys stay")

            // A key kept in a file of its own: changing that file alone changes nothing until SIGHUP.
            let keyFile = directory.appendingPathComponent("key-c")
            try Data("\(first)\n".utf8).write(to: keyFile)
            try write(keys: ["c": "file: \(keyFile.path)"])
            try await eventually(timeout: .seconds(30), "the key file's key taken") { await status(gateway.port, key: first) == 400 }
            try Data("\(third)\n".utf8).write(to: keyFile, options: .atomic)
            kill(gateway.process.processIdentifier, SIGHUP)
            try await eventually(timeout: .seconds(30), "the key file read again on SIGHUP") { await status(gateway.port, key: third) == 400 }
            #expect(await status(gateway.port, key: first) == 401)
            #expect(gateway.process.isRunning)
            try await gateway.terminate()
            #expect(gateway.process.terminationStatus == 0)
        }

        @Test("heraldctl keys new prints a fresh key and the line with its SHA-256, which the running gateway takes")
        func heraldctlPrintsAKeyTheGatewayTakes() async throws {
            defer { try? FileManager.default.removeItem(at: directory) }
            let heraldctl = ServiceProcess.binaryDirectory.appendingPathComponent("heraldctl").path
            func newKey() async throws -> [String: Any] {
                let (status, output) = try await runCommand(heraldctl, ["keys", "new", "--id", "ci", "--scopes", "events,devices", "--json"])
                #expect(status == 0, "\(output)")
                return try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
            }
            let printed = try await newKey()
            let key = try #require(printed["key"] as? String)
            #expect(key.hasPrefix("hk_") && key.count == 46, "32 random bytes as base64url: \(key)")
            #expect(printed["sha256"] as? String == HeraldStack.sha256Hex(key))
            #expect(printed["line"] as? String == "- { id: ci, sha256: \(HeraldStack.sha256Hex(key)), scopes: [events, devices] }")
            #expect(try await newKey()["key"] as? String != key, "each key is new")
            let (refused, message) = try await runCommand(heraldctl, ["keys", "new", "--id", "ci", "--scopes", "everything"])
            #expect(refused == 65 && message.contains("scope everything"), "\(refused): \(message)")

            try write(keys: ["old": "sha256: \(HeraldStack.sha256Hex("old"))"])
            let gateway = try ServiceProcess("herald-gateway", environment: ["HERALD_CONFIG": file.path])
            defer { gateway.discard() }
            try await gateway.waitUntilReady()
            #expect(await status(gateway.port, key: key) == 401)
            let line = try #require(printed["line"] as? String)
            try Data("apps:\n  \(app):\n    apiKeys:\n      \(line)\n".utf8).write(to: file, options: .atomic)
            try await eventually(timeout: .seconds(30), "the printed key taken") { await status(gateway.port, key: key) == 400 }
            try await gateway.terminate()
        }

        @Test("on SIGHUP a service other than the gateway starts again in place: the same process, ready again, and SIGTERM still ends it gracefully")
        func otherServicesStartAgainInPlaceOnSIGHUP() async throws {
            defer { try? FileManager.default.removeItem(at: directory) }
            try write(keys: ["a": "sha256: \(HeraldStack.sha256Hex("k"))"])
            let service = try ServiceProcess("herald-encryption", environment: ["HERALD_CONFIG": file.path])
            defer { service.discard() }
            try await service.waitUntilReady()
            let listening = occurrences("listening", in: service)
            kill(service.process.processIdentifier, SIGHUP)
            try await eventually(timeout: .seconds(30), "the fresh start listening") {
                occurrences("starting again in place", in: service) == 1 && occurrences("listening", in: service) > listening
            }
            #expect(service.logText().contains("starts again in place to apply it"))
            #expect(service.process.isRunning, "the same process")
            try await service.waitUntilReady()
            try await service.terminate()
            #expect(service.process.terminationStatus == 0)
        }
    }
}

/// A changed apps file through the whole stack: each service applies what it uses, without
/// anyone restarting it.
extension ServiceProcesses {
    @Suite("The apps file changed under a running stack")
    struct StackAppsReloadTests {
        @Test("an app added to the apps file reaches its devices through every service; a key added restarts nothing; a broken file changes nothing")
        func anAddedAppIsDeliveredWithoutARestart() async throws {
            let stack = try await HeraldStack.start()
            do {
                let config = URL(fileURLWithPath: try #require(stack.environment["HERALD_CONFIG"]))
                let original = try String(contentsOf: config, encoding: .utf8)
                let others = stack.services.filter { $0.name != "herald-gateway" }
                let pids = stack.services.map(\.process.processIdentifier)
                let restarted = "starts again in place to apply it"

                // A key only: the gateway takes it; no other service uses keys, none starts again.
                let extra = "extra-\(UUID())"
                let marker = "      - { id: e2e-upstream,"
                try Data(original.replacingOccurrences(
                    of: marker, with: "      - { id: e2e-extra, sha256: \(HeraldStack.sha256Hex(extra)), scopes: [events] }\n" + marker
                ).utf8).write(to: config, options: .atomic)
                try await eventually(timeout: .seconds(30), "the key taken") { await postEmptyEvent(port: stack.gateway.port, app: stack.app, key: extra) == 400 }
                for service in others {
                    try await eventually(timeout: .seconds(30), "\(service.name) seeing the change") { occurrences("nothing \(service.name) uses", in: service) == 1 }
                    #expect(occurrences(restarted, in: service) == 0, "\(service.name) started again for a key")
                }

                // A new app, its providers' sections copied: every service starts again in place once.
                let late = "\(stack.app)-late"
                let body = try #require(original.components(separatedBy: "  \(stack.app):\n").last)
                try Data((original + "\n  \(late):\n" + body).utf8).write(to: config, options: .atomic)
                for service in others {
                    try await eventually(timeout: .seconds(60), "\(service.name) starting again") { occurrences(restarted, in: service) == 1 }
                }
                for service in stack.services { try await service.waitUntilReady() }
                #expect(stack.services.map(\.process.processIdentifier) == pids, "each the same process")
                #expect(stack.services.allSatisfy { $0.process.isRunning })
                try await stack.expectOK("PUT", "/devices/late-phone", ["platform": "fcm", "token": "late-token", "os": "android", "userId": "late-user"], app: late)
                var answer = await stack.call("POST", "/events", ["id": "late-1", "source": "api", "kind": "news", "audience": ["users": ["late-user"]], "data": ["a": "b"]], app: late)
                while answer.status == 503 || answer.status == 0 {
                    try await Task.sleep(for: .seconds(1))
                    answer = await stack.call("POST", "/events", ["id": "late-1", "source": "api", "kind": "news", "audience": ["users": ["late-user"]], "data": ["a": "b"]], app: late)
                }
                #expect(answer.status == 202, "\(answer.json)")
                try await eventually(timeout: .seconds(60), "the new app's push") { !stack.received("late-token").isEmpty }

                // A broken file: refused everywhere, nothing starts again, the new app still works.
                try Data("apps:\n  \(late): [".utf8).write(to: config, options: .atomic)
                for service in stack.services {
                    try await eventually(timeout: .seconds(30), "\(service.name) refusing the file") { occurrences("apps file refused", in: service) == 1 }
                }
                #expect(others.allSatisfy { occurrences(restarted, in: $0) == 1 })
                #expect(await postEmptyEvent(port: stack.gateway.port, app: late, key: stack.key) == 400, "the previous configuration stays")
                try await stack.stop()
            } catch {
                await stack.discard()
                throw error
            }
        }
    }
}

/// How many times `text` appears in a service's log.
func occurrences(_ text: String, in service: ServiceProcess) -> Int {
    service.logText().components(separatedBy: text).count - 1
}
