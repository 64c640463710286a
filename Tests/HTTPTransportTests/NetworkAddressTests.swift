import HTTPTransport
import Testing

/// The scopes the server-side request forgery guard reads addresses by.
@Suite struct NetworkAddressTests {
    @Test(arguments: [
        ("127.0.0.1", NetworkAddress.Scope.loopback), ("127.255.0.9", .loopback), ("::1", .loopback), ("[::1]", .loopback),
        ("10.0.0.1", .private), ("172.16.4.2", .private), ("172.31.255.255", .private), ("192.168.1.1", .private), ("100.64.0.1", .private),
        ("169.254.169.254", .linkLocal), ("fe80::1", .linkLocal),
        ("fc00::1", .uniqueLocal), ("fd12:3456::1", .uniqueLocal),
        ("224.0.0.1", .multicast), ("ff02::1", .multicast),
        ("0.0.0.0", .unspecified), ("::", .unspecified),
        ("255.255.255.255", .reserved), ("192.0.2.10", .reserved), ("2001:db8::1", .reserved),
        ("93.184.216.34", .global), ("172.32.0.1", .global), ("2606:4700::1111", .global),
    ])
    func anAddressHasItsScope(_ text: String, _ scope: NetworkAddress.Scope) throws {
        let address = try #require(NetworkAddress(text))
        #expect(address.scope == scope)
    }

    @Test(arguments: [
        ("::ffff:127.0.0.1", NetworkAddress.Scope.loopback), ("::ffff:7f00:1", .loopback), ("::ffff:10.0.0.1", .private),
        ("::ffff:169.254.169.254", .linkLocal), ("::127.0.0.1", .loopback), ("64:ff9b::a9fe:a9fe", .linkLocal),
        ("2002:7f00:0001::", .loopback), ("2002:0a00:0001::1", .private), ("::ffff:93.184.216.34", .global),
    ])
    func anIPv6FormOfAnIPv4AddressHasTheIPv4Scope(_ text: String, _ scope: NetworkAddress.Scope) throws {
        #expect(try #require(NetworkAddress(text)).scope == scope)
    }

    @Test func onlyLoopbackPrivateLinkLocalAndUniqueLocalArePrivateNetworks() {
        #expect(NetworkAddress.Scope.allCases.filter(\.isPrivateNetwork) == [.loopback, .private, .linkLocal, .uniqueLocal])
    }

    @Test func anAddressPrintsAsCurlConnectsToIt() throws {
        #expect(try #require(NetworkAddress("[0:0:0:0:0:0:0:1]")).description == "::1")
        #expect(try #require(NetworkAddress("10.0.0.1")).description == "10.0.0.1")
        #expect(NetworkAddress("tenant.example") == nil)
    }

    @Test func theSystemResolverReadsNumericFormsTheWayConnectingWould() async throws {
        // "127.1" is not a literal inet_pton accepts, but getaddrinfo (and so curl) reads it as 127.0.0.1.
        let addresses = try await SystemHostResolver().addresses(of: "127.1")
        #expect(addresses.map(\.description) == ["127.0.0.1"])
    }

    @Test func localhostResolvesToLoopbackOnly() async throws {
        let addresses = try await SystemHostResolver().addresses(of: "localhost")
        #expect(!addresses.isEmpty && addresses.allSatisfy { $0.scope == .loopback })
    }
}
