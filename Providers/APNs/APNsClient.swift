import DispatchKit
import Foundation
import HeraldModel
import HTTPTransport
import Logging
import Synchronization

/// APNs for one app: `POST /3/device/<token>` on its server, one request per delivery,
/// multiplexed over the transport's HTTP/2 connection, with the app's provider token. A
/// configuration error (wrong topic, key or environment) is logged once per reason, not
/// per push.
public struct APNsClient: UnicastProviderClient {
    public let app: String
    public let settings: APNsSettings
    public let tokens: AccessTokenCache
    let sender: AuthorizedSender
    let logger: Logger
    /// `<server>/3/device/`, worked out once: the token is all that changes per push.
    private let deviceURL: String
    private let reported = ReportedReasons()

    public init(app: String, settings: APNsSettings, key: APNsSigningKey, transport: HTTPTransport, logger: Logger = Logger(label: "herald.apns")) {
        self.init(app: app, settings: settings, tokens: APNsProviderToken.cache(for: key), transport: transport, logger: logger)
    }

    /// A client whose provider tokens come from `tokens` (tests sign with another clock).
    public init(app: String, settings: APNsSettings, tokens: AccessTokenCache, transport: HTTPTransport, logger: Logger = Logger(label: "herald.apns")) {
        self.app = app
        self.settings = settings
        self.tokens = tokens
        self.logger = logger
        deviceURL = "\(settings.server)/3/device/"
        sender = AuthorizedSender(transport: transport, tokens: tokens)
    }

    /// Sends one delivery, read by Apple's answer table.
    public func send(_ request: DispatchRequest) async -> SendResult {
        let message = APNsMessage(request)
        let url = deviceURL + message.token
        var headers = message.headers
        headers.append(("apns-topic", settings.topic))
        headers.append(("content-type", "application/json"))
        let answer = await sender.send(refusal: APNsAnswer.refusal) { token in
            HTTPRequest(method: "POST", url: url, headers: headers + [("authorization", "bearer \(token ?? "")")], body: message.body)
        }
        let result: SendResult
        switch answer {
        case .response(let response): result = APNsAnswer.result(response)
        case .result(let done): result = done
        }
        if case .failed(let code, let reason) = result, let code = code as? APNsReason, APNsReason.configuration.contains(code) {
            reportOnce(code, reason)
        }
        return result
    }

    private func reportOnce(_ code: APNsReason, _ reason: String) {
        guard reported.insert(code.raw) else { return }
        logger.error("APNs refuses the app's settings; its pushes fail until they are mended", metadata: [
            "app": "\(app)", "reason": "\(code.raw)", "detail": "\(reason)", "topic": "\(settings.topic)",
            "environment": "\(settings.environment.rawValue)", "keyId": "\(settings.keyId)",
        ])
    }
}

/// The reasons already logged, so each is logged once.
final class ReportedReasons: Sendable {
    private let reasons = Mutex<Set<String>>([])

    /// True the first time `reason` is inserted.
    func insert(_ reason: String) -> Bool {
        reasons.withLock { $0.insert(reason).inserted }
    }
}
