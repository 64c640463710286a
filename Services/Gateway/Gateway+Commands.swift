import HeraldDomain
import Foundation
import HeraldModel
import Messaging

/// How the gateway forwards a request to Registration or Preferences: an RPC call, its typed
/// errors as problems, no answer as a 503.
extension Gateway {
    /// A registration command's answer, with every device's token masked: outside the
    /// provider request Herald shows only its first and last six characters.
    func registry(_ command: RegistrationCommand, status: Int) async throws -> Reply {
        var reply = try await call(command, to: .registration, RegistrationReply.self)
        reply.device = reply.device?.masked
        return try Self.json(status, reply)
    }

    func preference(_ command: PreferenceCommand) async throws -> Reply {
        try Self.json(200, try await call(command, to: .preferences, PreferenceReply.self))
    }

    /// An RPC call to `target`; a typed error becomes the problem it names, no answer (or no
    /// broker) a 503. A reply that does not decode is a defect, not an outage: it is rethrown
    /// and answered 500.
    func call<C: Encodable & Sendable, R: Decodable>(_ command: C, to target: CommandTarget, _ reply: R.Type) async throws -> R {
        let (queue, type) = Self.destination(target, configuration)
        return try await answering(target) {
            try await rpc.call(command, type: type, queue: queue, expecting: R.self, timeout: configuration.commandTimeout)
        }
    }

    /// An RPC call whose reply body is answered as it came, unread: for a large answer the
    /// gateway shows as the service wrote it (the stats), so it is not read and written again.
    func callForBody<C: Encodable & Sendable>(_ command: C, to target: CommandTarget) async throws -> Data {
        let (queue, type) = Self.destination(target, configuration)
        return try await answering(target) {
            try await rpc.callForBody(command, type: type, queue: queue, timeout: configuration.commandTimeout)
        }
    }

    static func destination(_ target: CommandTarget, _ configuration: Configuration) -> (queue: String, type: String) {
        switch target {
        case .registration: (configuration.registrationQueue, RegistrationCommand.contractName)
        case .preferences: (configuration.preferencesQueue, PreferenceCommand.contractName)
        }
    }

    /// Runs an RPC call: a typed error becomes the problem it names, no answer a 503.
    func answering<T>(_ target: CommandTarget, _ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as CommandError {
            let title = switch error.status {
            case 403: "Forbidden"
            case 404: "Not Found"
            case 409: "Conflict"
            case 412: "Precondition Failed"
            case 422: "Unprocessable Content"
            default: "Invalid request"
            }
            throw GatewayError(error.status, title, error.detail, field: error.code.hasPrefix("invalid-") ? String(error.code.dropFirst(8)) : nil)
        } catch is MessagingError {
            throw GatewayError.unavailable("the \(target.rawValue) service did not answer; try again")
        }
    }
}
