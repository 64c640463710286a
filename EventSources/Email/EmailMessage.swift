import HeraldDomain
import HeraldModel

/// Sudo email `POST …/email/messages`: the received message's metadata; encrypted by
/// default for the address's key.
enum EmailMessage {
    @Sendable static func event(_ request: SourceRequest) throws(GatewayError) -> NotificationEvent {
        let body = request.body
        let addressId = try body.string("emailAddressId", maxLength: 256)
        let sudoId = try body.string("sudoId", maxLength: 256)
        let owner = try body.string("owner", maxLength: 256)
        let messageId = try SourceEventIds.sourceId(body, "messageId")
        // "On receipt of each email message": an empty sender or subject is pushed as it is.
        let from = try body.optionalString("from", maxLength: 1024, emptyIsAbsent: true) ?? ""
        let subject = try body.optionalString("subject", maxLength: 2048, emptyIsAbsent: true) ?? ""
        let receivedAt = try body.string("receivedAt", maxLength: 64)
        guard HeraldJSON.parseTimestamp(receivedAt) != nil else { throw .invalid("receivedAt", "must be an ISO-8601 UTC timestamp") }
        return NotificationEvent(
            id: SourceEventIds.eventId(.sudoEmail, messageId), app: request.app, source: .sudoEmail, kind: "email.received", occurredAt: request.now,
            audience: .emailAddressId(addressId),
            context: ["emailAddressId": addressId, "sudoId": sudoId, "owner": owner],
            data: ["emailAddressId": addressId, "sudoId": sudoId, "owner": owner, "messageId": messageId, "from": from, "subject": subject, "receivedAt": receivedAt],
            options: DeliveryOptions(encryption: .required))
    }
}
