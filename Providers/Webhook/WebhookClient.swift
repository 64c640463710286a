import DispatchKit
import Foundation
import HeraldModel
import HTTPTransport
import Metrics
import Synchronization

/// Forwards an app's webhook deliveries to its destination, one signed `POST` per delivery
/// (Standard Webhooks headers), and reads each answer:
/// - 2xx: delivered;
/// - 410 Gone: revoked — the registration behind the delivery (device or sponsee) is removed
///   and nothing more is forwarded for it until it registers again;
/// - 429 and 5xx: retried through the broker's delay tiers, never sooner than `Retry-After`;
///   so are timeouts, connection errors and names that do not resolve;
/// - a redirect: failed (`REDIRECT`), never followed; any other status: failed.
///
/// Before connecting, the host is resolved and every address checked: loopback, private,
/// link-local, unique-local, multicast and other special addresses are refused
/// (`ADDRESS_REFUSED`) unless the app allows private networks, and the connection goes to
/// the address that was checked. At most `concurrency` forwards to the destination are in
/// flight, the rest wait; but once every slot is taken and none has finished for `stall`, a
/// new delivery is retried later (`DESTINATION_BUSY`) instead of waiting and holding the
/// consumer, so one slow tenant does not hold up the others while a fast one with a backlog
/// keeps its deliveries.
///
/// The same client posts an app's callbacks (`Purpose.callbacks`) to its callback endpoint:
/// the body is the callback (`CallbackPayload`), and a 410 fails the callback, there being no
/// registration behind it to remove.
public struct WebhookClient: UnicastProviderClient {
    /// What the client posts: an app's forwards, or its callbacks.
    public enum Purpose: Sendable, Hashable {
        case forwards, callbacks
    }

    public let app: String
    public let destination: WebhookDestination
    public let purpose: Purpose
    let sender: AuthorizedSender
    let resolver: any HostResolver
    let settings: WebhookSettings
    let now: @Sendable () -> Date
    private let load: DestinationLoad
    /// Callbacks only: holds them while their endpoint keeps failing, so a dead endpoint
    /// costs one probe a while rather than an attempt per callback per delay tier.
    let circuit: CircuitBreaker<ContinuousClock>?

    public init(
        app: String, destination: WebhookDestination, transport: HTTPTransport, purpose: Purpose = .forwards, settings: WebhookSettings = WebhookSettings(),
        resolver: any HostResolver = SystemHostResolver(), now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.app = app
        self.destination = destination
        self.purpose = purpose
        sender = AuthorizedSender(transport: transport, tokens: nil)
        self.resolver = resolver
        self.settings = settings
        self.now = now
        load = DestinationLoad()
        circuit = purpose == .callbacks ? CircuitBreaker(configuration: settings.circuit, clock: ContinuousClock()) : nil
    }

    public func send(_ request: DispatchRequest) async -> SendResult {
        let body: Data
        switch purpose {
        case .forwards:
            guard let payload = WebhookPayload(request) else {
                return .failed(.encoding, "delivery \(request.deliveryId) carries no webhook forward")
            }
            do { body = try payload.body() } catch { return .failed(.encoding, "the forward could not be encoded: \(error)") }
        case .callbacks:
            do { body = try CallbackPayload(request).body() } catch { return .failed(.encoding, "the callback could not be encoded: \(error)") }
        }
        var probe = false
        if let circuit {
            switch circuit.admit() {
            case .send(let probing): probe = probing
            case .hold(let wait):
                return .held(reason: "\(destination.host) keeps failing: held until the circuit is tried again", retryAfter: wait)
            }
        }
        let result = await post(request, body: body)
        if let circuit, case .open? = circuit.record(failed: Self.isFailure(result), probe: probe) {
            WebhookMetrics.circuitOpened.increment()
        }
        return result
    }

    /// Whether a result is the destination failing (not answering, or 429 or 5xx), as the
    /// circuit counts failures; a busy destination is our own limit, not its failure.
    static func isFailure(_ result: SendResult) -> Bool {
        guard case .retry(let code, _, _) = result else { return false }
        return code.raw != DispatchCode.destinationBusy.raw
    }

    private func post(_ request: DispatchRequest, body: Data) async -> SendResult {
        guard load.enter(slots: settings.concurrency, stall: settings.stall) else {
            WebhookMetrics.busy.increment()
            return .retry(.destinationBusy, "\(destination.host) has \(settings.concurrency) forwards in flight and none finished within \(settings.stall)")
        }
        defer { load.leave() }
        let address: NetworkAddress
        switch await checkedAddress() {
        case .success(let checked): address = checked
        case .failure(let refusal): return refusal.result
        }
        let timestamp = Int(now().timeIntervalSince1970)
        let http = HTTPRequest(
            method: "POST", url: destination.url,
            headers: [
                ("content-type", "application/json"),
                ("user-agent", "Herald-Webhook/1"),
                ("webhook-id", request.deliveryId),
                ("webhook-timestamp", String(timestamp)),
                ("webhook-signature", destination.signer.signature(id: request.deliveryId, timestamp: timestamp, body: body)),
            ],
            body: body, timeout: settings.timeout, connectAddress: address.description)
        switch await sender.send({ _ in http }) {
        case .result(let result): return result
        case .response(let response): return Self.result(for: response, purpose: purpose, now: now())
        }
    }

    /// What an endpoint's answer means for the delivery: the same for a callback, except
    /// that a 410 fails it (`HTTP_410`) rather than revoking anything.
    public static func result(for response: HTTPResponse, purpose: Purpose = .forwards, now: Date = Date()) -> SendResult {
        switch response.status {
        case 410 where purpose == .forwards:
            return .revoked(code: HTTPStatusCode(410), reason: "the endpoint answered 410 Gone: nothing more is forwarded for this recipient until it registers again")
        case 300..<400:
            let location = response.header("location").map { " to \($0)" } ?? ""
            return .failed(.redirect, "the endpoint answered \(response.status), a redirect\(location), which is not followed")
        default:
            return SendResult(status: response)
        }
    }

    /// Why a destination's host is not connected to.
    struct Refusal: Error {
        var result: SendResult
    }

    /// The destination host's first address, once every address passed the guard.
    private func checkedAddress() async -> Result<NetworkAddress, Refusal> {
        switch await AddressGuard(resolver: resolver).check(host: destination.host, allowPrivateNetworks: destination.allowPrivateNetworks) {
        case .success(let address):
            return .success(address)
        case .failure(let refusal):
            guard case .refused(_, let address) = refusal else { return .failure(Refusal(result: .retry(.transport, refusal.describe("")))) }
            WebhookMetrics.refused[address.scope]?.increment()
            let remedy = address.scope.isPrivateNetwork
                ? "which is refused; set apps.\(app).delivery.allowPrivateNetworks: true to allow it"
                : "which is never connected to"
            return .failure(Refusal(result: .failed(.addressRefused, "\(refusal.describe("the webhook host")), \(remedy)")))
        }
    }
}

/// The forwards to one destination in flight or waiting, and when it last made progress.
final class DestinationLoad: Sendable {
    private struct State {
        var pending = 0
        /// When a forward last finished, or the slots last filled up.
        var progress = ContinuousClock.now
    }

    private let state = Mutex(State())

    /// Takes a place unless every one of `slots` is taken and nothing finished for `stall`.
    func enter(slots: Int, stall: Duration) -> Bool {
        let now = ContinuousClock.now
        return state.withLock { state in
            if state.pending >= slots && now - state.progress > stall { return false }
            state.pending += 1
            if state.pending == slots { state.progress = now }
            return true
        }
    }

    func leave() {
        let now = ContinuousClock.now
        state.withLock { state in
            state.pending -= 1
            state.progress = now
        }
    }
}

/// The webhook dispatcher's own counters, made once.
enum WebhookMetrics {
    /// `herald_webhook_refused_total` by the refused address's scope.
    static let refused: [NetworkAddress.Scope: Counter] = Dictionary(uniqueKeysWithValues: NetworkAddress.Scope.allCases.map {
        ($0, Counter(label: "herald_webhook_refused_total", dimensions: [("scope", $0.rawValue)]))
    })
    /// `herald_webhook_busy_total`: deliveries sent to a delay tier because their destination was stalled.
    static let busy = Counter(label: "herald_webhook_busy_total")
    /// `herald_callback_circuit_opened_total`: times a callback endpoint's circuit opened
    /// (again after each failed probe).
    static let circuitOpened = Counter(label: "herald_callback_circuit_opened_total")
}
