import HeraldDomain
import Synchronization

/// The apps file as the gateway serves it: the apps and their credentials (API keys and
/// client-token keys), replaced together when the file is read again, so no request sees one
/// file's credentials with another's apps.
final class GatewayApps: Sendable {
    private let state: Mutex<(apps: AppsConfiguration, credentials: Credentials)>

    init(apps: AppsConfiguration, credentials: Credentials) {
        state = Mutex((apps, credentials))
    }

    var apps: AppsConfiguration { state.withLock { $0.apps } }
    var credentials: Credentials { state.withLock { $0.credentials } }

    func replace(apps: AppsConfiguration, credentials: Credentials) {
        state.withLock { $0 = (apps, credentials) }
    }
}
