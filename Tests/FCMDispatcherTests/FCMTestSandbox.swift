import FCM
import Foundation
import HeraldTestSupport
import HeraldStackTestSupport
import HTTPTransport
import FCMEmulation

typealias FCMTestSandbox = TestSandbox

/// FCM clients pointed at a test sandbox.
extension TestSandbox {
    var account: FCMServiceAccount {
        let demo = running.sandbox.emulator(FCMEmulator.self)!.demoAccount!
        return FCMServiceAccount(projectId: demo.projectId, privateKeyId: demo.privateKeyId, privateKey: demo.privateKey, clientEmail: demo.clientEmail, tokenUri: demo.tokenUri)
    }

    func transport(streams: Int = 100) -> HTTPTransport {
        HTTPTransport(configuration: HTTPTransportConfiguration(name: "test", maxConcurrentStreams: streams, connectTimeout: Self.connectTimeout, caFile: caFile))
    }

    func client(account: FCMServiceAccount? = nil, transport: HTTPTransport) -> FCMClient {
        FCMClient(app: "demo", account: account ?? self.account, endpoint: endpoint, transport: transport)
    }
}
