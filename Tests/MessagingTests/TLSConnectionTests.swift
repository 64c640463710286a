import Foundation
import HeraldTestSupport
@testable import Messaging
import Testing

/// AMQP over TLS (`amqps://`) against the test broker's TLS listener: messages go through
/// it encrypted, and a broker that cannot prove who it is gets nothing, not even in clear.
@Suite("AMQP over TLS", .needs(.broker, .tls))
struct TLSConnectionTests {
    static func configuration(_ name: String, url: AMQPURL, topology: AMQPTopology = AMQPTopology()) -> ConnectionConfiguration {
        var configuration = TestBroker.configuration(name, topology: topology)
        configuration.url = url
        return configuration
    }

    /// The broker's line of `rabbitmqctl list_connections` for the connection named `name`:
    /// whether it is TLS, its protocol and the client certificate's subject.
    static func brokerSide(of name: String) async throws -> [String]? {
        let listing = try await TestBroker.rabbitmqctl("list_connections", "ssl", "ssl_protocol", "peer_cert_subject", "client_properties")
        return listing.split(separator: "\n").first { $0.contains("\"\(name)\"") }.map { $0.split(separator: "\t").map(String.init) }
    }

    @Test("a publisher and a consumer over amqps:// deliver through the broker's TLS listener, on TLS 1.2 or newer")
    func deliversOverTLS() async throws {
        let url = try TestTLS.amqpsURL()
        let work = TestBroker.workTopology("tls")
        let publishing = Self.configuration("tls-pub", url: url, topology: work.topology)
        let publisher = Publisher(configuration: publishing)
        let consuming = Collector(Self.configuration("tls-sub", url: url, topology: work.topology), queue: work.queue.name)
        for i in 0..<20 { try await within(.seconds(60), "m\(i) published over TLS and confirmed") { try await publisher.publish(work.message("m\(i)")) } }
        try await consuming.inbox.waitUntil("20 messages") { $0.count == 20 }
        #expect(await consuming.inbox.ids == (0..<20).map { "m\($0)" })
        let side = try #require(try await Self.brokerSide(of: publishing.name), "the broker lists the publisher's connection")
        #expect(side[0] == "true", "the broker sees a TLS connection: \(side)")
        #expect(["tlsv1.2", "tlsv1.3", "'tlsv1.2'", "'tlsv1.3'"].contains(side[1]), "\(side)")
        await consuming.stop()
        await publisher.close()
        await work.cleanUp()
    }

    @Test("a client certificate is presented to the broker when its files are given")
    func presentsTheClientCertificate() async throws {
        let configuration = Self.configuration("tls-client-cert", url: try TestTLS.amqpsURL(clientCertificate: true))
        let publisher = Publisher(configuration: configuration)
        #expect(await publisher.waitUntilConnected(timeout: .seconds(30)), "\(String(describing: publisher.lastError))")
        let side = try #require(try await Self.brokerSide(of: configuration.name))
        #expect(side[2].contains("CN=herald-client"), "the broker saw the client certificate: \(side)")
        await publisher.close()
    }

    @Test("a broker whose certificate another CA signed is refused, the error naming HERALD_AMQP_CA_FILE, and nothing is sent")
    func refusesABrokerSignedByAnotherCA() async throws {
        let otherCA = try TestTLS.file("other-ca.pem")
        let configuration = Self.configuration("tls-wrong-ca", url: try TestTLS.amqpsURL(caFile: otherCA))
        let publisher = Publisher(configuration: configuration)
        #expect(await publisher.waitUntilConnected(timeout: .seconds(3)) == false)
        // Under the parallel suite the attempt may come late: wait for it, generously.
        try await eventually(timeout: .seconds(30), "the refusal recorded") { publisher.lastError != nil }
        let error = try #require(publisher.lastError)
        #expect(error.reason == .connectionFailed)
        #expect(error.message.contains("not signed by the CA in HERALD_AMQP_CA_FILE (\(otherCA))"), "\(error)")
        #expect(try await Self.brokerSide(of: configuration.name) == nil, "no connection logged in, in TLS or in clear")
        await publisher.close(timeout: .seconds(1))
    }

    @Test("a broker reached by a host name its certificate does not name is refused, the error saying so")
    func refusesAWrongHostName() async throws {
        let configuration = Self.configuration("tls-wrong-host", url: try TestTLS.amqpsURL(host: "127.0.0.1"))
        let publisher = Publisher(configuration: configuration)
        #expect(await publisher.waitUntilConnected(timeout: .seconds(3)) == false)
        // Under the parallel suite the attempt may come late: wait for it, generously.
        try await eventually(timeout: .seconds(30), "the refusal recorded") { publisher.lastError != nil }
        let error = try #require(publisher.lastError)
        #expect(error.message.contains("does not name the host 127.0.0.1"), "\(error)")
        #expect(try await Self.brokerSide(of: configuration.name) == nil)
        await publisher.close(timeout: .seconds(1))
    }

    @Test("with host name verification turned off, a certificate the CA signed is accepted for another name")
    func hostNameVerificationCanBeTurnedOff() async throws {
        var url = try TestTLS.amqpsURL(host: "127.0.0.1")
        url.tls?.verifyHostname = false
        let publisher = Publisher(configuration: Self.configuration("tls-no-host-check", url: url))
        #expect(await publisher.waitUntilConnected(timeout: .seconds(30)), "\(String(describing: publisher.lastError))")
        await publisher.close()
    }

    @Test("a plain AMQP port given as amqps:// fails the TLS handshake rather than talking in clear")
    func aPlainPortIsNotSpokenToInClear() async throws {
        var url = try TestTLS.amqpsURL()
        url.port = TestBroker.url.port
        let configuration = Self.configuration("tls-plain-port", url: url)
        let publisher = Publisher(configuration: configuration)
        #expect(await publisher.waitUntilConnected(timeout: .seconds(3)) == false)
        // Under the parallel suite the attempt may come late: wait for it, generously.
        try await eventually(timeout: .seconds(30), "the refusal recorded") { publisher.lastError != nil }
        let error = try #require(publisher.lastError)
        #expect(error.message.contains("TLS handshake"), "\(error)")
        #expect(try await Self.brokerSide(of: configuration.name) == nil)
        await publisher.close(timeout: .seconds(1))
    }
}
