/// Whether a delivery goes on, and if not, which level of preference stopped it.
public enum FilterDecision: Sendable, Hashable {
    case allow
    case filter(FilterLevel)
}

/// The levels of preference, in the order they are checked.
public enum FilterLevel: String, Sendable, Hashable, CaseIterable {
    /// The app's notifications are off (admin). Applies to critical events too.
    case network
    /// The user turned notifications off for all their devices.
    case user
    /// The user turned this channel off.
    case channel
    /// The user muted this kind of event.
    case kind
    /// The device's configuration disables this service (for this Sudo or address).
    case device
}
