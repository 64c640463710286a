import DispatchKit
import FCM
import Foundation
import HeraldDomain
import HeraldTestSupport
import HeraldStackTestSupport
import Logging
import ServiceKit
import Testing

@Suite("FCM for several apps in one process")
struct FCMDispatcherTests {
    @Test func eachAppSendsWithItsOwnServiceAccountToItsOwnEndpoint() async throws {
        let first = try await TestSandbox.start()
        let second = try await TestSandbox.start()
        let yaml = """
            apps:
              alpha:
                fcm: { serviceAccountFile: \(first.serviceAccountFile), endpoint: "\(first.endpoint)", caFile: \(first.caFile) }
              beta:
                fcm: { serviceAccountFile: \(second.serviceAccountFile), endpoint: "\(second.endpoint)", caFile: \(second.caFile) }
              gamma: {}
            """
        let dispatcher = try ProviderDispatcher<FCMClient>(fcmApps: AppsConfiguration.parse(yaml), logger: Logger(label: "test"))
        #expect(Set(dispatcher.clients.keys) == ["alpha", "beta"])
        #expect(dispatcher.transports.count == 2, "one transport per CA file")

        guard case .delivered = await dispatcher.send([TestSandbox.request(token: "to-alpha", app: "alpha")])[0],
              case .delivered = await dispatcher.send([TestSandbox.request(token: "to-beta", app: "beta")])[0] else {
            Issue.record("not delivered"); return
        }
        #expect(first.state.messages(provider: "fcm").map(\.token) == ["to-alpha"])
        #expect(second.state.messages(provider: "fcm").map(\.token) == ["to-beta"])
        #expect(first.state.issuedTokenCount(provider: "fcm") == 1 && second.state.issuedTokenCount(provider: "fcm") == 1)
        #expect(await dispatcher.send([TestSandbox.request(token: "to-gamma", app: "gamma")])[0] == .failed(code: DispatchCode.notConfigured, reason: "app gamma has no fcm settings"))
        for transport in dispatcher.transports { await transport.close() }
        await first.stop()
        await second.stop()
    }

    @Test func anUnreadableServiceAccountIsAConfigurationErrorNamingTheApp() throws {
        let yaml = "apps:\n  alpha:\n    fcm: { serviceAccountFile: /nonexistent/account.json }\n"
        #expect {
            _ = try ProviderDispatcher<FCMClient>(fcmApps: AppsConfiguration.parse(yaml), logger: Logger(label: "test"))
        } throws: {
            ($0 as? ConfigurationError)?.description.contains("apps.alpha.fcm.serviceAccountFile") == true
        }
    }
}
