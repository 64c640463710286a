import Foundation
import HeraldDomain
import HeraldModel

/// The query parameters of the list and stats endpoints, read into the commands Registration
/// answers, each wrong one a 400 that names it.
struct ListQuery {
    let query: [String: String]

    func events(sources: [EventSource]) throws(GatewayError) -> EventQuery {
        EventQuery(
            source: try oneOf("source", sources.map(\.rawValue)), kind: try text("kind"),
            status: try oneOf("status", EventProgress.allCases.map(\.rawValue)).flatMap(EventProgress.init(rawValue:)),
            since: try time("since"), until: try time("until"), cursor: try cursor(), limit: try limit())
    }

    func devices(userId: String? = nil, platforms: [Platform]) throws(GatewayError) -> DeviceQuery {
        let suffix = try text("tokenSuffix")
        if let suffix, suffix.unicodeScalars.count < 4 { throw GatewayError.invalid("tokenSuffix", "must be at least 4 characters") }
        let user = try text("userId")
        return DeviceQuery(
            userId: userId ?? user, platform: try oneOf("platform", platforms.map(\.rawValue)).flatMap(Platform.init(rawValue:)),
            registeredSince: try time("registeredSince"),
            lastOutcome: try oneOf("lastOutcome", OutcomeStatus.allCases.map(\.rawValue)).flatMap(OutcomeStatus.init(rawValue:)),
            tokenSuffix: suffix, cursor: try cursor(), limit: try limit())
    }

    /// `window`: minutes (`15m`) or hours (`1h`), up to 24 hours; one hour by default.
    func window() throws(GatewayError) -> TimeInterval {
        guard let value = query["window"] else { return 3600 }
        let unit: TimeInterval? = switch value.last {
        case "m": 60
        case "h": 3600
        default: nil
        }
        guard let unit, let count = Int(value.dropLast()), count > 0, TimeInterval(count) * unit <= ListLimits.longestStatsWindow else {
            throw GatewayError.invalid("window", "must be minutes or hours (15m, 1h), from 1m to 24h")
        }
        return TimeInterval(count) * unit
    }

    private func text(_ name: String) throws(GatewayError) -> String? {
        guard let value = query[name] else { return nil }
        guard TextLimits.fits(value, maximum: TextLimits.identifier) else {
            throw GatewayError.invalid(name, "must be 1 to \(TextLimits.identifier) characters")
        }
        return value
    }

    private func oneOf(_ name: String, _ values: [String]) throws(GatewayError) -> String? {
        guard let value = query[name] else { return nil }
        guard values.contains(value) else { throw GatewayError.invalid(name, "must be one of \(values.joined(separator: ", "))") }
        return value
    }

    private func time(_ name: String) throws(GatewayError) -> Date? {
        guard let value = query[name] else { return nil }
        guard let date = Self.timestamp(value) else { throw GatewayError.invalid(name, "must be an RFC 3339 time, e.g. 2026-11-27T08:00:00Z") }
        return date
    }

    private func cursor() throws(GatewayError) -> String? {
        guard let value = query["cursor"] else { return nil }
        guard (1...1024).contains(value.utf8.count) else { throw GatewayError.invalid("cursor", "is not a cursor a page answered with") }
        return value
    }

    private func limit() throws(GatewayError) -> Int {
        guard let value = query["limit"] else { return ListLimits.defaultPage }
        guard let limit = Int(value), (1...ListLimits.largestPage).contains(limit) else {
            throw GatewayError.invalid("limit", "must be a whole number from 1 to \(ListLimits.largestPage)")
        }
        return limit
    }

    /// An RFC 3339 time, with or without a fraction of a second.
    static func timestamp(_ text: String) -> Date? {
        let plain = ISO8601DateFormatter()
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return plain.date(from: text) ?? fractional.date(from: text)
    }
}
