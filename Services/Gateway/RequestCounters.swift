import Metrics
import Synchronization

/// `herald_gateway_requests_total{endpoint,status}`, each counter made once.
final class RequestCounters: Sendable {
    static let shared = RequestCounters()
    private let counters = Mutex<[String: Counter]>([:])

    func count(_ endpoint: Endpoint, _ status: Int) {
        let key = "\(endpoint.rawValue) \(status)"
        let counter = counters.withLock { table in
            if let existing = table[key] { return existing }
            let made = Counter(label: "herald_gateway_requests_total", dimensions: [("endpoint", endpoint.rawValue), ("status", "\(status)")])
            table[key] = made
            return made
        }
        counter.increment()
    }
}
