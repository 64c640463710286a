/// A user's own switches: everything on or off for all their devices, and event kinds they
/// muted (e.g. `sign`, `member.joined`).
public struct UserPreferences: Codable, Sendable, Hashable {
    public var enabled: Bool
    public var mutedKinds: [String]

    public init(enabled: Bool = true, mutedKinds: [String] = []) {
        self.enabled = enabled
        self.mutedKinds = mutedKinds
    }

    private enum CodingKeys: String, CodingKey { case enabled, mutedKinds }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        enabled = try c.decodeIfPresent(Bool.self, forKey: .enabled) ?? true
        mutedKinds = try c.decodeIfPresent([String].self, forKey: .mutedKinds) ?? []
    }
}
