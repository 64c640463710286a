import Foundation

/// What an app registers for one of its devices (`PUT /devices/{deviceId}`): an upsert, the
/// last write wins.
public struct DeviceRegistration: Codable, Sendable, Hashable {
    public var deviceId: String
    public var platform: Platform
    public var token: String
    public var os: DeviceOS
    /// The device belongs to at most one user; registering it for another moves it.
    public var userId: String?
    /// Smart ID style push ids (profile ids) this device listens to; replaces the old list.
    public var pushIds: [String]
    public var locale: String?
    /// The Web Push key for encrypted payloads.
    public var key: DeviceKey?

    public init(
        deviceId: String, platform: Platform, token: String, os: DeviceOS, userId: String? = nil,
        pushIds: [String] = [], locale: String? = nil, key: DeviceKey? = nil
    ) {
        self.deviceId = deviceId
        self.platform = platform
        self.token = token
        self.os = os
        self.userId = userId
        self.pushIds = pushIds
        self.locale = locale
        self.key = key
    }

    private enum CodingKeys: String, CodingKey { case deviceId, platform, token, os, userId, pushIds, locale, key }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        deviceId = try c.decode(String.self, forKey: .deviceId)
        platform = try c.decode(Platform.self, forKey: .platform)
        token = try c.decode(String.self, forKey: .token)
        os = try c.decode(DeviceOS.self, forKey: .os)
        userId = try c.decodeIfPresent(String.self, forKey: .userId)
        pushIds = try c.decodeIfPresent([String].self, forKey: .pushIds) ?? []
        locale = try c.decodeIfPresent(String.self, forKey: .locale)
        key = try c.decodeIfPresent(DeviceKey.self, forKey: .key)
    }
}

/// A registered device as Registration keeps it.
public struct DeviceRecord: Codable, Sendable, Hashable {
    public var registration: DeviceRegistration
    public var createdAt: Date
    public var updatedAt: Date
    public var lastSeenAt: Date
    /// The device's latest delivery outcome (in a list of devices, and alone).
    public var lastOutcome: DeviceOutcome?
    /// Its latest outcome and its outcomes that were not delivered (delivered ones are kept
    /// in their events' rows, not per device), most recent first: only when the device is
    /// asked for alone.
    public var recentOutcomes: [DeviceOutcome]?

    public init(registration: DeviceRegistration, createdAt: Date, updatedAt: Date, lastSeenAt: Date, lastOutcome: DeviceOutcome? = nil) {
        self.registration = registration
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.lastSeenAt = lastSeenAt
        self.lastOutcome = lastOutcome
    }

    /// The device as a delivery names it.
    public var target: DeviceTarget {
        DeviceTarget(
            id: registration.deviceId, platform: registration.platform, token: registration.token, os: registration.os,
            userId: registration.userId, locale: registration.locale, key: registration.key)
    }
}

/// A device's latest delivery outcome: which event, what became of it, and when.
public struct DeviceOutcome: Codable, Sendable, Hashable {
    public var eventId: String
    public var deliveryId: String
    public var status: OutcomeStatus
    public var providerCode: String?
    public var at: Date

    public init(eventId: String, deliveryId: String, status: OutcomeStatus, providerCode: String? = nil, at: Date) {
        self.eventId = eventId
        self.deliveryId = deliveryId
        self.status = status
        self.providerCode = providerCode
        self.at = at
    }
}
