import Foundation
import HeraldDomain
import HeraldModel

/// The documents providers serve an app's clients (`ProviderResource`, e.g. Web Push's
/// `vapid-public-key`), each at `GET …/<platform>/<name>`.
struct ProvidersController {
    let gateway: Gateway

    func getResource(_ call: Gateway.Call) async throws -> Gateway.Reply {
        let platform = call.request.parameter("platform"), name = call.request.parameter("resource")
        guard let provider = Platform(rawValue: platform).flatMap({ gateway.providers[$0] }),
              let resource = provider.resources.first(where: { $0.name == name }) else {
            throw GatewayError(404, "Not Found", "no provider here serves \(platform)/\(name)")
        }
        guard let configuration = gateway.apps.apps[call.app], let answer = try resource.answer(call.app, configuration) else {
            throw GatewayError(404, "Not Found", "app \(call.app) has no \(provider.platform) settings (a \(provider.platform) section in the apps file)")
        }
        return try Gateway.json(200, answer)
    }
}
