import HeraldModel
import Messaging
@_spi(Testing) import ServiceKit

/// The test seams of `Stage`, which are not its public API.
extension Stage {
    /// A per-message stage that calls `afterPublish` between publishing an input's outputs
    /// and acknowledging it, e.g. to kill its connection there.
    public static func withHooks(
        consuming queue: QueueSpec, prefetch: UInt16 = 64, maxAttempts: Int = 5, runtime: ServiceRuntime,
        afterPublish: @escaping @Sendable (ReceivedMessage) async -> Void, handler: @escaping Handler
    ) -> Stage<Input> {
        Stage(consuming: queue, prefetch: prefetch, maxAttempts: maxAttempts, runtime: runtime,
              hooks: Hooks(afterPublish: afterPublish), handler: handler)
    }
}
