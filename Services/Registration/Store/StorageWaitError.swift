/// A batch gave up waiting for events another replica holds; the broker redelivers it.
struct StorageWaitError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
