/// What `RegistrationStore.claim` decided for one event.
public enum EventClaim: Sendable, Hashable {
    /// Ours to fan out: nobody processed it, and no other copy is being processed.
    case claimed
    /// Processed before: its deliveries were published already.
    case processed
    /// Another copy is being processed right now by this process.
    case inFlight
    /// Another replica is fanning out a copy right now: ask again shortly (it ends as
    /// `processed`, or as `claimed` when that replica released it or died).
    case heldElsewhere
}
