import HeraldDomain
import HeraldModel

/// Sudo email: the email service posts each received message's metadata
/// (`POST …/email/messages`), pushed encrypted for the key its address registered
/// (`PUT …/email/addresses/{id}/key`, a Registration record), to devices that opted in.
public struct EmailSource: SourceDescriptor {
    public init() {}

    public var source: EventSource { .sudoEmail }
    public var displayName: String { "Sudo email" }

    public var routes: [SourceRoute] {
        [SourceRoute(
            operation: "emailMessages", path: "/email/messages", summary: "Sudo email message received (encrypted for the address's key by default)",
            ingestSummary: "a Sudo email message received", bodySchema: Self.messagesSchema, makeEvent: EmailMessage.event)]
    }

    public var stateRoutes: [SourceStateRoute] { [AddressKeyRegistration.route] }

    /// Sudo's iOS guide decodes every push in a notification service extension.
    public var iOSDecodesInExtension: Bool { true }

    public var kitNotes: String {
        "encrypted for the address's key: the kit decrypts with it (HeraldClient), then reads emailAddressId, sudoId, owner, messageId, from, subject and receivedAt"
    }

    public var sample: SourceSample {
        SourceSample(name: "email", target: .address, path: "/email/messages") { target, id, now throws(SampleTarget.Missing) in
            ["emailAddressId": try target.need(target.address, "--address"), "sudoId": "heraldctl", "owner": try target.need(target.user, "--user"),
             "messageId": id, "from": "heraldctl@example.com", "subject": "A test message from heraldctl",
             "receivedAt": HeraldJSON.formatTimestamp(now)]
        }
    }

    static let messagesSchema = #"""
        type: object
        required: [emailAddressId, sudoId, owner, messageId, receivedAt]
        description: "every message is pushed, with an empty sender or subject too"
        properties:
          emailAddressId: { $ref: "#/components/schemas/Id" }
          sudoId: { $ref: "#/components/schemas/Id" }
          owner: { $ref: "#/components/schemas/Id" }
          messageId: { $ref: "#/components/schemas/SourceId" }
          from: { type: string, maxLength: 1024 }
          subject: { type: string, maxLength: 2048 }
          receivedAt: { type: string, format: date-time, maxLength: 64 }
        """#
}
