/// What `RegistrationStore.unregister` did.
public struct Unregistration: Sendable, Hashable {
    public enum Result: Sendable, Hashable {
        case removed, noDevice, anotherUsers
    }

    public var result: Result
    public var detail: String
    public var removed: Bool { result == .removed }

    public init(result: Result, detail: String) {
        self.result = result
        self.detail = detail
    }
}
