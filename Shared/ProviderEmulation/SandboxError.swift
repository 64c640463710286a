import Foundation

/// A problem with the sandbox's own setup.
public struct SandboxError: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
