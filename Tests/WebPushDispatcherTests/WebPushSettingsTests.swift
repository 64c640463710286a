import Foundation
import HeraldDomain
import Logging
import ServiceKit
import Testing
import WebPush

/// An app's `webpush` section: what herald-webpush and every other service refuse, naming the
/// setting.
struct WebPushSettingsTests {
    @Test func aKeyFileThatIsNotAP256KeyStopsTheDispatcherNamingTheSetting() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("vapid-\(UUID()).pem")
        try Data("-----BEGIN PRIVATE KEY-----\nnot a key\n-----END PRIVATE KEY-----\n".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        for path in [file.path, "/nonexistent/vapid.pem"] {
            let apps = try AppsConfiguration.parse("apps:\n  web:\n    webpush: { vapidPrivateKeyFile: \(path), subject: \"mailto:ops@example.com\" }\n")
            #expect {
                _ = try WebPushProvider().dispatcher(apps: apps, environment: [:], logger: Logger(label: "test"))
            } throws: {
                ($0 as? ConfigurationError)?.description.contains("apps.web.webpush.vapidPrivateKeyFile") == true
            }
        }
    }

    @Test func aSubjectThatIsNotAMailtoOrHTTPSURIIsRefusedByEveryService() throws {
        let apps = try AppsConfiguration.parse("apps:\n  web:\n    webpush: { vapidPrivateKeyFile: vapid.pem, subject: \"ops@example.com\" }\n")
        #expect {
            _ = try HeraldConfiguration(apps: apps, providers: ProviderRegistry([WebPushProvider()]), sources: SourceRegistry())
        } throws: {
            ($0 as? ConfigurationError)?.description.contains("apps.web.webpush.subject") == true
        }
    }
}
