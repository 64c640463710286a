import Foundation
import Messaging

/// What a `Stage` consumes: read from a message, and written back alone when one input of a
/// pack goes back to the queue or to the dead letters. The stage knows nothing else of it;
/// HeraldDomain makes every contract one.
public protocol StageInput: Sendable {
    /// The inputs `message` carries: one, or each element of a pack. Throws what is wrong with it.
    static func inputs(in message: ReceivedMessage) throws -> [Self]
    /// This input alone as a message body and its properties, carrying `headers`.
    func message(headers: [String: HeaderValue]) throws -> (body: Data, properties: MessageProperties)
    /// The input's id, for logs.
    var messageId: String { get }
    /// What a trace shows of the input (ids, app, source, kind, platform; never a token, key or
    /// payload), as span attributes.
    var traceAttributes: [String: String] { get }
}

extension StageInput {
    public var traceAttributes: [String: String] { [:] }
}
