/// Who a device-side client token acts for: its user (`sub`) and the Smart ID profile ids
/// (`pushIds`) its device may listen to. The gateway reads it from a verified token;
/// Registration checks every command sent on its behalf against it (`RegistrationCommand.actingFor`).
public struct ClientIdentity: Codable, Sendable, Hashable {
    public var userId: String
    public var pushIds: [String]

    public init(userId: String, pushIds: [String] = []) {
        self.userId = userId
        self.pushIds = pushIds
    }

    /// Whether the token may register these profile ids.
    public func mayListen(to pushIds: [String]) -> Bool {
        pushIds.allSatisfy(self.pushIds.contains)
    }

    /// Whether a registered device is this identity's: its user's, or (a Smart ID device,
    /// which names no user) one listening only to profile ids the token holds.
    public func owns(_ registration: DeviceRegistration) -> Bool {
        if let userId = registration.userId { return userId == self.userId }
        return !registration.pushIds.isEmpty && mayListen(to: registration.pushIds)
    }
}
