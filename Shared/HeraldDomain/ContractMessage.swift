import Foundation
import HeraldModel
import Messaging

extension OutgoingMessage {
    /// A persistent JSON message carrying `contract`, with the AMQP properties of the wire
    /// conventions: `type` = contract name, `message_id` = its id, `correlation_id` = the
    /// event id, `timestamp` = now.
    public init<C: Contract>(
        contract: C, exchange: String, routingKey: String,
        headers: [String: HeaderValue] = [:], mandatory: Bool = false
    ) throws {
        self.init(
            exchange: exchange, routingKey: routingKey, body: try contract.wireJSON(),
            properties: .contract(C.contractName, messageId: contract.messageId, correlationId: contract.correlationId, headers: headers),
            mandatory: mandatory)
    }
}

extension MessageProperties {
    /// The properties of a contract message: persistent JSON, `type` = the contract name,
    /// `message_id`, `correlation_id`, `timestamp` = now. For bodies encoded ahead of time.
    public static func contract(_ name: String, messageId: String, correlationId: String, headers: [String: HeaderValue] = [:]) -> MessageProperties {
        MessageProperties(
            contentType: "application/json", type: name, messageId: messageId, correlationId: correlationId,
            timestamp: Date(), persistent: true, headers: headers)
    }
}

extension ReceivedMessage {
    /// Decodes the body as `C`, checking the `type` property when the sender set one.
    /// Throws `ContractError` saying precisely what is wrong.
    public func decode<C: Contract>(_ type: C.Type) throws -> C {
        if let sent = properties.type, sent != C.contractName {
            throw ContractError(.wrongType, "expected a \(C.contractName) message, got type \"\(sent)\"")
        }
        do {
            return try C.fromWireJSON(body)
        } catch {
            throw ContractError(.malformed, "\(C.contractName): \(HeraldJSON.describe(error))")
        }
    }
}

extension ReceivedMessage {
    /// Decodes the body as one `C`, or as the elements of a pack (`MessagePack`) of `C`s.
    public func decodeAll<C: Contract>(_ type: C.Type) throws -> [C] {
        guard MessagePack.isPack(properties) else { return [try decode(C.self)] }
        if let sent = properties.type, sent != C.contractName {
            throw ContractError(.wrongType, "expected a pack of \(C.contractName), got type \"\(sent)\"")
        }
        let elements: [C]
        do {
            elements = try C.arrayFromWireJSON(body)
        } catch {
            throw ContractError(.malformed, "a pack of \(C.contractName): \(HeraldJSON.describe(error))")
        }
        guard !elements.isEmpty else { throw ContractError(.malformed, "an empty pack of \(C.contractName)") }
        return elements
    }
}

/// Why a message could not be turned into a contract.
public struct ContractError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Reason: String, Sendable, Hashable {
        case wrongType
        case malformed
    }

    public var reason: Reason
    public var message: String

    public init(_ reason: Reason, _ message: String) {
        self.reason = reason
        self.message = message
    }

    public var description: String { message }
}

extension RPCClient {
    /// Sends a typed command and decodes the typed reply; a `herald.error.v1` reply is
    /// thrown as `CommandError`, a reply that does not decode as `ContractError`.
    public func call<Request: Encodable & Sendable, Reply: Decodable>(
        _ request: Request, type: String, queue: String, expecting: Reply.Type,
        timeout: Duration = .seconds(5)
    ) async throws -> Reply {
        let body = try await callForBody(request, type: type, queue: queue, timeout: timeout)
        do {
            return try HeraldJSON.decode(Reply.self, from: body)
        } catch {
            throw ContractError(.malformed, "reply to \(type): \(HeraldJSON.describe(error))")
        }
    }

    /// Sends a typed command and answers the reply's body as it came, for a caller that
    /// passes it on unread; a `herald.error.v1` reply is thrown as `CommandError`.
    public func callForBody<Request: Encodable & Sendable>(
        _ request: Request, type: String, queue: String, timeout: Duration = .seconds(5)
    ) async throws -> Data {
        let reply = try await call(queue: queue, type: type, body: HeraldJSON.encode(request), timeout: timeout)
        if reply.properties.type == CommandError.contractName {
            throw try HeraldJSON.decode(CommandError.self, from: reply.body)
        }
        return reply.body
    }
}

extension RPCReply {
    /// A typed reply encoded with the contract conventions.
    public static func encoding<T: Encodable>(_ value: T, type: String) throws -> RPCReply {
        RPCReply(type: type, body: try HeraldJSON.encode(value))
    }

    /// The typed error reply.
    public static func error(_ error: CommandError) -> RPCReply {
        RPCReply(type: CommandError.contractName, body: (try? HeraldJSON.encode(error)) ?? Data())
    }

    /// The reply to a handler's error: a `CommandError` as itself, anything else as
    /// `internal` (500), so a caller never learns more than that the command failed inside.
    @Sendable public static func commandError(_ error: any Error) -> RPCReply {
        .error(error as? CommandError ?? CommandError(code: "internal", detail: "the command failed inside the service", status: 500))
    }
}
