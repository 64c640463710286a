import HeraldDomain
import Synchronization

/// The apps file as the gateway serves it: the apps and their API keys, replaced together
/// when the file is read again, so no request sees one file's keys with another's apps.
final class GatewayApps: Sendable {
    private let state: Mutex<(apps: AppsConfiguration, keys: APIKeys)>

    init(apps: AppsConfiguration, keys: APIKeys) {
        state = Mutex((apps, keys))
    }

    var apps: AppsConfiguration { state.withLock { $0.apps } }
    var keys: APIKeys { state.withLock { $0.keys } }

    func replace(apps: AppsConfiguration, keys: APIKeys) {
        state.withLock { $0 = (apps, keys) }
    }
}
