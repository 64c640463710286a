import Foundation
import HeraldModel

/// `/sandbox/…`: the inbox of accepted messages, fault injection, and the demo credentials.
struct SandboxAdmin: Sendable {
    let sandbox: Sandbox

    /// `GET /sandbox/messages?provider=&app=&token=&since=&until=&limit=`, oldest first.
    func messages(_ request: SandboxRequest) -> SandboxReply {
        func text(_ key: String) -> String? { request.query[key].flatMap { $0.isEmpty ? nil : $0 } }
        var since: Date?
        var until: Date?
        if let value = text("since") {
            guard let date = HeraldJSON.parseTimestamp(value) else { return problem(400, "since must be an ISO-8601 timestamp, got \"\(value)\"") }
            since = date
        }
        if let value = text("until") {
            guard let date = HeraldJSON.parseTimestamp(value) else { return problem(400, "until must be an ISO-8601 timestamp, got \"\(value)\"") }
            until = date
        }
        var limit: Int?
        if let value = text("limit") {
            guard let number = Int(value), number > 0 else { return problem(400, "limit must be a positive number, got \"\(value)\"") }
            limit = number
        }
        if let provider = text("provider"), !sandbox.providerNames.contains(provider) {
            return problem(400, "provider must be one of \(sandbox.providerNames.joined(separator: ", ")), got \"\(provider)\"")
        }
        let entries = sandbox.state.messages(provider: text("provider"), app: text("app"), token: text("token"), since: since, until: until, limit: limit)
        let list: [[String: Any]] = entries.map { entry in
            var object: [String: Any] = [
                "id": entry.id, "provider": entry.provider, "app": entry.app, "token": entry.token,
                "receivedAt": HeraldJSON.formatTimestamp(entry.receivedAt),
                "message": entry.message,
            ]
            object["requestId"] = entry.requestId
            object["headers"] = entry.headers
            return object
        }
        return SandboxHTTP.json(200, ["count": list.count, "messages": list])
    }

    /// `GET /sandbox/receipts?provider=`: one line per accepted message, oldest first,
    /// `<received at, Unix milliseconds> <provider> <the data map's event id, or ->`; compact
    /// enough for a benchmark to fetch hundreds of thousands and measure latencies. Provider
    /// `webhook` is the receiver's forwards it answered with a 2xx (their `data.eventId`);
    /// no provider is every provider's and the receiver's.
    func receipts(_ request: SandboxRequest) -> SandboxReply {
        let provider = request.query["provider"].flatMap { $0.isEmpty ? nil : $0 }
        var lines: [(at: Date, provider: String, eventId: String?)] = []
        if provider != "webhook" {
            lines += sandbox.state.messages(provider: provider).map { ($0.receivedAt, $0.provider, $0.eventId) }
        }
        if provider == nil || provider == "webhook" {
            lines += sandbox.webhooks.received().filter { (200..<300).contains($0.status) }.map { ($0.receivedAt, "webhook", $0.eventId) }
        }
        if provider == nil { lines.sort { $0.at < $1.at } }
        var text = ""
        for line in lines {
            let millis = Int64((line.at.timeIntervalSince1970 * 1000).rounded())
            text += "\(millis) \(line.provider) \(line.eventId ?? "-")\n"
        }
        return SandboxReply(status: 200, headers: [("Content-Type", "text/plain; charset=utf-8")], body: Data(text.utf8))
    }

    /// `GET /sandbox/requests?app=&limit=`: Push Kit `messages:send` requests, oldest first,
    /// each with its token list and the code it was answered with.
    func requests(_ request: SandboxRequest) -> SandboxReply {
        let app = request.query["app"].flatMap { $0.isEmpty ? nil : $0 }
        var limit: Int?
        if let value = request.query["limit"], !value.isEmpty {
            guard let number = Int(value), number > 0 else { return problem(400, "limit must be a positive number, got \"\(value)\"") }
            limit = number
        }
        let list: [[String: Any]] = sandbox.state.sendRequests(provider: "hms", app: app, limit: limit).map { record in
            [
                "requestId": record.requestId, "provider": record.provider, "app": record.app, "tokens": record.tokens,
                "code": record.code, "receivedAt": HeraldJSON.formatTimestamp(record.receivedAt),
            ]
        }
        return SandboxHTTP.json(200, ["count": list.count, "requests": list])
    }

    /// `GET /sandbox/webhooks?name=`: the forwards the webhook receiver got, oldest first,
    /// with their Standard Webhooks headers, body and the status answered.
    func webhooks(_ request: SandboxRequest) -> SandboxReply {
        let name = request.query["name"].flatMap { $0.isEmpty ? nil : $0 }
        let list: [[String: Any]] = sandbox.webhooks.received(name: name).map { receipt in
            var object: [String: Any] = [
                "name": receipt.name, "status": receipt.status, "receivedAt": HeraldJSON.formatTimestamp(receipt.receivedAt),
                "body": (try? JSONSerialization.jsonObject(with: receipt.body)) ?? String(decoding: receipt.body, as: UTF8.self),
            ]
            object["webhookId"] = receipt.webhookId
            object["webhookTimestamp"] = receipt.timestamp
            object["webhookSignature"] = receipt.signature
            return object
        }
        return SandboxHTTP.json(200, ["count": list.count, "webhooks": list])
    }

    func clearWebhooks() -> SandboxReply {
        sandbox.webhooks.clear()
        return SandboxReply(status: 204)
    }

    func clear() -> SandboxReply {
        sandbox.state.clearMessages()
        return SandboxHTTP.empty(204)
    }

    func faults() -> SandboxReply {
        SandboxHTTP.json(200, describe(sandbox.state.currentFaults))
    }

    /// `PUT /sandbox/faults` with `{"outageSeconds": 30}` or `{"outageFrom": ts, "outageUntil": ts}`,
    /// `"errorRate": 0…1`, `"latencyMs": n`, and `{"throttleSeconds": 30, "retryAfterSeconds": 5}`
    /// (every send answers 429 with that `Retry-After`); fields left out are reset.
    func setFaults(_ request: SandboxRequest) -> SandboxReply {
        let body = request.body
        guard let object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] else {
            return problem(400, "the body must be a JSON object")
        }
        let known: Set<String> = ["outageSeconds", "outageFrom", "outageUntil", "errorRate", "latencyMs", "throttleSeconds", "retryAfterSeconds"]
        if let unknown = object.keys.sorted().first(where: { !known.contains($0) }) {
            return problem(400, "unknown field \"\(unknown)\"; known: \(known.sorted().joined(separator: ", "))")
        }
        var faults = SandboxState.Faults()
        if let seconds = object["outageSeconds"] {
            guard let value = SandboxHTTP.number(seconds), value > 0 else { return problem(400, "outageSeconds must be a positive number") }
            faults.outage = Date()...Date().addingTimeInterval(value)
        } else if object["outageFrom"] != nil || object["outageUntil"] != nil {
            guard let from = (object["outageFrom"] as? String).flatMap(HeraldJSON.parseTimestamp) ?? (object["outageFrom"] == nil ? Date() : nil),
                  let until = (object["outageUntil"] as? String).flatMap(HeraldJSON.parseTimestamp), until > from else {
                return problem(400, "outageFrom and outageUntil must be ISO-8601 timestamps, outageUntil after outageFrom")
            }
            faults.outage = from...until
        }
        if let rate = object["errorRate"] {
            guard let value = SandboxHTTP.number(rate), (0...1).contains(value) else { return problem(400, "errorRate must be a number from 0 to 1") }
            faults.errorRate = value
        }
        if let latency = object["latencyMs"] {
            guard let number = SandboxHTTP.number(latency), let value = Int(exactly: number), (0...60_000).contains(value) else { return problem(400, "latencyMs must be a whole number of milliseconds from 0 to 60000") }
            faults.latencyMilliseconds = value
        }
        if let seconds = object["throttleSeconds"] {
            guard let value = SandboxHTTP.number(seconds), value > 0 else { return problem(400, "throttleSeconds must be a positive number") }
            faults.throttle = Date()...Date().addingTimeInterval(value)
        }
        if let retryAfter = object["retryAfterSeconds"] {
            guard let number = SandboxHTTP.number(retryAfter), let value = Int(exactly: number), (1...3600).contains(value) else {
                return problem(400, "retryAfterSeconds must be a whole number of seconds from 1 to 3600")
            }
            faults.retryAfterSeconds = value
        }
        sandbox.state.currentFaults = faults
        return SandboxHTTP.json(200, describe(faults))
    }

    func resetFaults() -> SandboxReply {
        sandbox.state.currentFaults = SandboxState.Faults()
        return SandboxHTTP.empty(204)
    }

    /// The demo credentials (a sandbox's private key is no secret: it signs nothing real).
    /// `DELETE /sandbox/tokens`: revokes every issued access token.
    func revokeTokens() -> SandboxReply {
        SandboxHTTP.json(200, ["revoked": sandbox.state.revokeAccessTokens()])
    }

    func credentials() -> SandboxReply {
        var object: [String: Any] = ["caPEM": sandbox.certificates.caPEM]
        for emulator in sandbox.emulators {
            object.merge(emulator.demoCredentials()) { first, _ in first }
        }
        return SandboxHTTP.json(200, object)
    }

    private func describe(_ faults: SandboxState.Faults) -> [String: Any] {
        var object: [String: Any] = ["errorRate": faults.errorRate, "latencyMs": faults.latencyMilliseconds, "retryAfterSeconds": faults.retryAfterSeconds]
        if let throttle = faults.throttle {
            object["throttleFrom"] = HeraldJSON.formatTimestamp(throttle.lowerBound)
            object["throttleUntil"] = HeraldJSON.formatTimestamp(throttle.upperBound)
        }
        if let outage = faults.outage {
            object["outageFrom"] = HeraldJSON.formatTimestamp(outage.lowerBound)
            object["outageUntil"] = HeraldJSON.formatTimestamp(outage.upperBound)
        }
        return object
    }

    /// An RFC 9457 problem.
    func problem(_ status: Int, _ detail: String, title: String = "Bad Request") -> SandboxReply {
        SandboxHTTP.json(status, ["type": "about:blank", "title": title, "status": status, "detail": detail], contentType: "application/problem+json")
    }
}
