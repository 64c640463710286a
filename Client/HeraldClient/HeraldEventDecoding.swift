import Foundation

/// The typed event of each kind, from the event's data and the variant it came in.
enum HeraldEventDecoding {
    static func event(kind: String, variant: HeraldNotification.Variant, data: [String: String]) throws(HeraldClientError) -> HeraldEvent {
        func required(_ key: String) throws(HeraldClientError) -> String {
            guard let value = data[key], !value.isEmpty else {
                throw HeraldClientError(.missingField, field: key, "a \(kind) event without \(key)")
            }
            return value
        }
        switch kind {
        case "auth", "sign":
            return .authenticationRequest(AuthenticationRequest(
                type: kind == "auth" ? .authentication : .signing, messageId: try required("messageId"), requestor: data["requestor"],
                pushId: data["pushId"]))
        case "message":
            return .sponsorMessage(SponsorMessage(
                msgId: try required("msgId"), msgType: data["msgType"], relationshipDid: data["relationshipDid"], senderName: data["msgSenderName"]))
        case "channel.created", "member.joined", "message.created":
            let chat = ChatEvent(
                channelId: try required("channelId"), actorId: try required("actorId"),
                messageType: data["messageType"].flatMap(ChatEvent.MessageType.init(rawValue:)))
            switch kind {
            case "channel.created": return .chatChannelCreated(chat)
            case "member.joined": return .chatMemberJoined(chat)
            default: return .chatMessage(chat)
            }
        case "email.received":
            return .emailReceived(EmailReceived(
                emailAddressId: try required("emailAddressId"), sudoId: try required("sudoId"), messageId: try required("messageId"),
                owner: data["owner"], from: data["from"], subject: data["subject"], receivedAt: data["receivedAt"]))
        case "value.changed":
            let path = try required("path")
            switch variant {
            case .hidden: return .valueChanged(ValueChange(path: path, content: .hidden, appId: data["appId"]))
            case .tooBig: return .valueChanged(ValueChange(path: path, content: .tooBig, appId: data["appId"]))
            case .onlyKeys:
                throw HeraldClientError(.malformedPayload, field: "variant", "variant onlyKeys is only for children.updated, not value.changed")
            case .full: return .valueChanged(ValueChange(path: path, content: .value(data["value"]), appId: data["appId"]))
            }
        case "children.updated":
            let path = try required("path")
            switch variant {
            case .hidden: return .childrenUpdated(ChildrenUpdate(path: path, content: .hidden, appId: data["appId"]))
            case .tooBig: return .childrenUpdated(ChildrenUpdate(path: path, content: .tooBig, appId: data["appId"]))
            case .full:
                return .childrenUpdated(ChildrenUpdate(path: path, content: .children(added: data["added"], changed: data["changed"], removed: data["removed"]), appId: data["appId"]))
            case .onlyKeys:
                return .childrenUpdated(ChildrenUpdate(path: path, content: .keys(
                    added: try keys("added", data), changed: try keys("changed", data), removed: try keys("removed", data)), appId: data["appId"]))
            }
        case "subscription.revoked":
            return .subscriptionRevoked(SubscriptionRevocation(path: try required("path"), reason: data["reason"], appId: data["appId"]))
        default:
            return .other(kind: kind)
        }
    }

    /// An `onlyKeys` field: the JSON array of the child keys (absent: none).
    private static func keys(_ field: String, _ data: [String: String]) throws(HeraldClientError) -> [String] {
        guard let text = data[field] else { return [] }
        guard let keys = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [Any], keys.allSatisfy({ $0 is String }) else {
            throw HeraldClientError(.malformedPayload, field: field, "an onlyKeys field that is not a JSON array of strings")
        }
        return keys.compactMap { $0 as? String }
    }
}
