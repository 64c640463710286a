import Crypto
import Foundation
@testable import Gateway
import HeraldDomain
import HeraldModel
import HeraldTestSupport
import HTTPTransport
import Testing

/// Ingest URLs at the gateway: a URL held in the apps file as a hash takes its source's
/// endpoint with no header and names its app; another source's path, a wrong secret and a
/// sender outside its networks are refused without saying which; the app's rate limits apply;
/// no answer carries the secret.
@Suite("Ingest URLs", .needs(.broker))
struct IngestURLTests {
    static let secret = "hgi_" + String(repeating: "s3cr3t", count: 7)

    static func fixture(networks: String? = nil, rateLimits: String? = nil) async throws -> GatewayFixture {
        let line = "ingestURLs: [{ id: verity, source: evernym, sha256: \(GatewayFixture.sha(secret))\(networks.map { ", networks: [\($0)]" } ?? "") }]"
        let gateway = try await GatewayFixture(rateLimits: rateLimits, extraAppSettings: line)
        // As the gateway's refresher would once it read Registration's (none here).
        gateway.gateway.ingest.replaceStored([])
        return gateway
    }

    static let forward = #"{"msgId":"m-1","msgType":"credOffer","sponseeDetails":"FCM:ingest-token","relationshipDid":"did:sov:1"}"#

    @Test func aURLFromTheAppsFileTakesItsSourcesEndpointWithoutAHeader() async throws {
        let gateway = try await Self.fixture()
        let answer = await gateway.send("POST", "/v1/ingest/\(Self.secret)/evernym/notify", key: nil, body: Data(Self.forward.utf8))
        #expect(answer.status == 202, "\(answer.json)")
        try await gateway.waitForEvents("the forward") { $0.count == 1 }
        #expect(try await gateway.published().first?.app == gateway.app)
        await gateway.stop()
    }

    @Test func anotherSourcesPathAndAWrongSecretAreTheSame404() async throws {
        let gateway = try await Self.fixture()
        let otherSource = await gateway.send("POST", "/v1/ingest/\(Self.secret)/smartid/push", key: nil, body: Data(#"{"messageId":"m","pushId":"p","requestor":"r","type":"AUTH"}"#.utf8))
        let wrong = await gateway.send("POST", "/v1/ingest/\(Self.secret)x/evernym/notify", key: nil, body: Data(Self.forward.utf8))
        #expect(otherSource.status == 404 && wrong.status == 404, "\(otherSource.json) \(wrong.json)")
        #expect(otherSource.json["detail"] as? String == wrong.json["detail"] as? String)
        for answer in [otherSource, wrong] { #expect(!"\(answer.json)".contains("s3cr3t")) }
        await gateway.stop()
    }

    @Test func aSecretNotInTheFileIs503UntilTheStoredOnesWereRead() async throws {
        let gateway = try await GatewayFixture()
        let answer = await gateway.send("POST", "/v1/ingest/hgi_unknown-before-reading/evernym/notify", key: nil, body: Data(Self.forward.utf8))
        #expect(answer.status == 503 && answer.headers["retry-after"] != nil, "\(answer.json)")
        gateway.gateway.ingest.replaceStored([])
        #expect(await gateway.send("POST", "/v1/ingest/hgi_unknown-before-reading/evernym/notify", key: nil, body: Data(Self.forward.utf8)).status == 404)
        await gateway.stop()
    }

    @Test func aSenderOutsideTheURLsNetworksIs403() async throws {
        let outside = try await Self.fixture(networks: "192.0.2.0/24, 2001:db8::/32")
        let refused = await outside.send("POST", "/v1/ingest/\(Self.secret)/evernym/notify", key: nil, body: Data(Self.forward.utf8))
        #expect(refused.status == 403 && !"\(refused.json)".contains("s3cr3t"), "\(refused.json)")
        await outside.stop()
        let inside = try await Self.fixture(networks: "127.0.0.0/8")
        #expect(await inside.send("POST", "/v1/ingest/\(Self.secret)/evernym/notify", key: nil, body: Data(Self.forward.utf8)).status == 202)
        await inside.stop()
        // A network that cannot be read closes the URL rather than opening it to everyone.
        let unreadable = try await Self.fixture(networks: "127.0.0.0/33")
        let closed = await unreadable.send("POST", "/v1/ingest/\(Self.secret)/evernym/notify", key: nil, body: Data(Self.forward.utf8))
        #expect(closed.status == 403 && "\(closed.json)".contains("cannot be read"), "\(closed.json)")
        await unreadable.stop()
    }

    @Test func theAppsRateLimitsApply() async throws {
        let gateway = try await Self.fixture(rateLimits: "{ key: { perSecond: 0.01, burst: 2 } }")
        var statuses: [Int] = []
        for index in 0..<3 {
            let body = Self.forward.replacingOccurrences(of: "m-1", with: "m-\(index)")
            statuses.append(await gateway.send("POST", "/v1/ingest/\(Self.secret)/evernym/notify", key: nil, body: Data(body.utf8)).status)
        }
        #expect(statuses == [202, 202, 429])
        await gateway.stop()
    }

    /// A read of the stored secrets that began before this gateway made one must not undo it
    /// when its answer comes (it may not hold the new secret yet); the next read replaces all.
    @Test func aReadBegunBeforeALocalChangeDoesNotUndoIt() {
        let secrets = IngestSecrets(apps: AppsConfiguration())
        secrets.replaceStored([])
        let since = secrets.readBegins()
        secrets.insertStored(IngestSecretEntry(app: "a", id: "u", source: "evernym", networks: [], sha256: IngestURL.sha256(secret: "hgi_new")))
        secrets.replaceStored([], since: since)
        guard case .url(let entry) = secrets.match(secret: "hgi_new") else { Issue.record("a stale read undid the new secret"); return }
        #expect(entry.id == "u")
        secrets.replaceStored([], since: secrets.readBegins())
        guard case .unknown = secrets.match(secret: "hgi_new") else { Issue.record("a read begun after the change did not apply"); return }
    }

    @Test func aSecretIsShownMasked() {
        #expect(IngestSecrets.masked(Self.secret) == "hgi_****3cr3t".replacingOccurrences(of: "3cr3t", with: String(Self.secret.suffix(4))))
        #expect(IngestSecrets.maskedPath("/v1/ingest/\(Self.secret)/evernym/notify") == "/v1/ingest/hgi_****\(Self.secret.suffix(4))/evernym/notify")
        #expect(IngestSecrets.maskedPath("/v1/apps/demo/events") == "/v1/apps/demo/events")
    }

    @Test func networksAreMatchedByPrefix() throws {
        let block = try #require(NetworkCIDR("10.1.0.0/16"))
        let inside = try #require(NetworkAddress("10.1.200.3")), outside = try #require(NetworkAddress("10.2.0.1"))
        let mapped = try #require(NetworkAddress("::ffff:10.1.0.9"))
        #expect(block.contains(inside) && !block.contains(outside))
        #expect(block.contains(mapped), "an IPv4-mapped peer")
        #expect(NetworkCIDR("10.0.0.0/33") == nil && NetworkCIDR("not-an-address") == nil)
        let v6 = try #require(NetworkCIDR("2001:db8::/32")), v6Peer = try #require(NetworkAddress("2001:db8:1::1"))
        #expect(v6.contains(v6Peer))
    }
}
