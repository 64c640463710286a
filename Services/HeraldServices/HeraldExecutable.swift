import APNs
import Callback
import DispatchKit
import FCM
import HeraldProviders
import HMS
import Webhook

/// Every Herald service executable by name, and what it runs. The thin executables each run
/// one; the image's multi-call `herald` runs the one it is called as (`herald-gateway` is a link
/// to it), so one binary serves every service.
public enum HeraldExecutable: String, CaseIterable, Sendable {
    case gateway = "herald-gateway"
    case registration = "herald-registration"
    case preferences = "herald-preferences"
    case encryption = "herald-encryption"
    case fcm = "herald-fcm"
    case hms = "herald-hms"
    case webhook = "herald-webhook"
    case apns = "herald-apns"
    case callback = "herald-callback"
    case sandbox = "herald-sandbox"

    /// Runs the service until SIGTERM or SIGINT; exits the process on a configuration error.
    public func main() async {
        switch self {
        case .gateway: await GatewayService.main()
        case .registration: await RegistrationService.main()
        case .preferences: await PreferencesService.main()
        case .encryption: await EncryptionService.main()
        // A dispatcher is its provider on DispatchKit's stage.
        case .fcm: await DispatcherService.main(FCMProvider(), registry: .herald)
        case .hms: await DispatcherService.main(HMSProvider(), registry: .herald)
        case .webhook: await DispatcherService.main(WebhookProvider(), registry: .herald)
        case .apns: await DispatcherService.main(APNsProvider(), registry: .herald)
        case .callback: await DispatcherService.main(CallbackProvider(), registry: .herald)
        case .sandbox: await SandboxService.main()
        }
    }
}
