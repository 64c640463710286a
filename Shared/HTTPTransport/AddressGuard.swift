/// The server-side request forgery guard for a URL someone outside chose (a webhook, a Web
/// Push endpoint): resolves the host and refuses it when one of its addresses is not on the
/// internet, or, where private networks are allowed, when one is of a scope never connected
/// to. The request then connects to the address checked (`HTTPRequest.connectAddress`), so
/// what is checked is what is reached.
public struct AddressGuard: Sendable {
    /// Why a host is not connected to.
    public enum Refusal: Error, Sendable, Hashable {
        /// The name gave no address (retry: DNS may answer later).
        case unresolved(String)
        /// One of its addresses is of a refused scope.
        case refused(host: String, address: NetworkAddress)

        /// "`subject` <host> resolves to <address>, a private address" (or "is a … address"
        /// for an IP literal).
        public func describe(_ subject: String) -> String {
            switch self {
            case .unresolved(let reason): return reason
            case .refused(let host, let address):
                return host == address.description
                    ? "\(subject) \(address) is a \(address.scope.rawValue) address"
                    : "\(subject) \(host) resolves to \(address), a \(address.scope.rawValue) address"
            }
        }
    }

    public let resolver: any HostResolver

    public init(resolver: any HostResolver = SystemHostResolver()) {
        self.resolver = resolver
    }

    /// The host's first address, once every address passed the guard.
    public func check(host: String, allowPrivateNetworks: Bool) async -> Result<NetworkAddress, Refusal> {
        let addresses: [NetworkAddress]
        do {
            addresses = try await resolver.addresses(of: host)
        } catch {
            return .failure(.unresolved("\(error)"))
        }
        for address in addresses {
            let scope = address.scope
            if scope == .global || (allowPrivateNetworks && scope.isPrivateNetwork) { continue }
            return .failure(.refused(host: host, address: address))
        }
        guard let first = addresses.first else { return .failure(.unresolved("\(host) has no address")) }
        return .success(first)
    }
}
