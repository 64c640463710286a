import Foundation
import JSONKit

/// A versioned wire contract: a `Codable` message that travels over AMQP with its name in
/// the `type` property, its own id in `message_id` and its event id in `correlation_id`.
public protocol Contract: Codable, Sendable {
    /// The contract name with its version, e.g. `herald.event.v1`.
    static var contractName: String { get }
    /// The contract's own id, sent as the AMQP `message_id`.
    var messageId: String { get }
    /// The id of the event this message descends from, sent as the AMQP `correlation_id`.
    var correlationId: String { get }
    /// The message body: the contract's JSON with Herald's conventions. Contracts written at
    /// high rates give their own faster writer; its bytes equal `HeraldJSON.encode(self)`.
    func wireJSON() throws -> Data
    /// Decodes one contract from its JSON; contracts read at high rates read it directly
    /// (`JSONReadable`) and fall back to the decoder for anything unusual, so results and
    /// errors equal `HeraldJSON.decode`'s.
    static func fromWireJSON(_ data: Data) throws -> Self
    /// Decodes a JSON array of contracts (a pack's body), likewise.
    static func arrayFromWireJSON(_ data: Data) throws -> [Self]
}

extension Contract {
    public func wireJSON() throws -> Data { try HeraldJSON.encode(self) }
    public static func fromWireJSON(_ data: Data) throws -> Self { try HeraldJSON.decode(Self.self, from: data) }
    public static func arrayFromWireJSON(_ data: Data) throws -> [Self] { try HeraldJSON.decode([Self].self, from: data) }
}

/// A value that reads itself from JSON with `JSONReader`, throwing for anything outside the
/// reader's subset; it must read exactly the values its `Decodable` conformance would.
public protocol JSONReadable {
    init(reading json: inout JSONReader) throws
}

extension Contract where Self: JSONReadable {
    public static func fromWireJSON(_ data: Data) throws -> Self {
        if let value = JSONReader.read(data, { try Self(reading: &$0) }) { return value }
        return try HeraldJSON.decode(Self.self, from: data)
    }

    public static func arrayFromWireJSON(_ data: Data) throws -> [Self] {
        let list = JSONReader.read(data) { reader -> [Self] in
            var list: [Self] = []
            try reader.array { list.append(try Self(reading: &$0)) }
            return list
        }
        if let list { return list }
        return try HeraldJSON.decode([Self].self, from: data)
    }
}

/// The names of every contract, in one place.
public enum ContractName {
    public static let event = "herald.event.v1"
    public static let delivery = "herald.delivery.v1"
    public static let dispatch = "herald.dispatch.v1"
    public static let outcome = "herald.outcome.v1"
    public static let tokenRevoked = "herald.token-revoked.v1"
    public static let commandError = "herald.error.v1"
}
