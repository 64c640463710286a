package org.herald.client;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The typed event of each kind, from the event's data and the variant it came in. */
final class HeraldEventDecoding {
    private HeraldEventDecoding() {}

    static HeraldEvent event(String kind, HeraldNotification.Variant variant, Map<String, String> data) throws HeraldClientException {
        switch (kind) {
            case "auth":
            case "sign":
                return new HeraldEvent.AuthenticationRequest(
                    kind.equals("auth") ? HeraldEvent.AuthenticationRequest.Type.AUTHENTICATION : HeraldEvent.AuthenticationRequest.Type.SIGNING,
                    required(kind, "messageId", data), data.get("requestor"), data.get("pushId"));
            case "message":
                return new HeraldEvent.SponsorMessage(required(kind, "msgId", data), data.get("msgType"), data.get("relationshipDid"), data.get("msgSenderName"));
            case "channel.created":
                return new HeraldEvent.ChatChannelCreated(required(kind, "channelId", data), required(kind, "actorId", data), HeraldEvent.MessageType.of(data.get("messageType")));
            case "member.joined":
                return new HeraldEvent.ChatMemberJoined(required(kind, "channelId", data), required(kind, "actorId", data), HeraldEvent.MessageType.of(data.get("messageType")));
            case "message.created":
                return new HeraldEvent.ChatMessage(required(kind, "channelId", data), required(kind, "actorId", data), HeraldEvent.MessageType.of(data.get("messageType")));
            case "email.received":
                return new HeraldEvent.EmailReceived(
                    required(kind, "emailAddressId", data), required(kind, "sudoId", data), required(kind, "messageId", data),
                    data.get("owner"), data.get("from"), data.get("subject"), data.get("receivedAt"));
            case "value.changed": {
                String path = required(kind, "path", data);
                HeraldEvent.ValueChanged.Content content;
                switch (variant) {
                    case HIDDEN: content = new HeraldEvent.ValueChanged.Hidden(); break;
                    case TOO_BIG: content = new HeraldEvent.ValueChanged.TooBig(); break;
                    case ONLY_KEYS:
                        throw new HeraldClientException(HeraldClientException.Reason.MALFORMED_PAYLOAD, "variant",
                            "variant onlyKeys is only for children.updated, not value.changed");
                    default: content = new HeraldEvent.ValueChanged.Value(data.get("value"));
                }
                return new HeraldEvent.ValueChanged(path, content, data.get("appId"));
            }
            case "children.updated": {
                String path = required(kind, "path", data);
                HeraldEvent.ChildrenUpdated.Content content;
                switch (variant) {
                    case HIDDEN: content = new HeraldEvent.ChildrenUpdated.Hidden(); break;
                    case TOO_BIG: content = new HeraldEvent.ChildrenUpdated.TooBig(); break;
                    case ONLY_KEYS:
                        content = new HeraldEvent.ChildrenUpdated.Keys(keys("added", data), keys("changed", data), keys("removed", data));
                        break;
                    default: content = new HeraldEvent.ChildrenUpdated.Children(data.get("added"), data.get("changed"), data.get("removed"));
                }
                return new HeraldEvent.ChildrenUpdated(path, content, data.get("appId"));
            }
            case "subscription.revoked":
                return new HeraldEvent.SubscriptionRevoked(required(kind, "path", data), data.get("reason"), data.get("appId"));
            default:
                return new HeraldEvent.Other(kind);
        }
    }

    private static String required(String kind, String key, Map<String, String> data) throws HeraldClientException {
        String value = data.get(key);
        if (value == null || value.isEmpty()) {
            throw new HeraldClientException(HeraldClientException.Reason.MISSING_FIELD, key, "a " + kind + " event without " + key);
        }
        return value;
    }

    /** An {@code onlyKeys} field: the JSON array of the child keys (absent: none). */
    private static List<String> keys(String field, Map<String, String> data) throws HeraldClientException {
        String text = data.get(field);
        if (text == null) return List.of();
        Object parsed;
        try {
            parsed = Json.parse(text);
        } catch (Json.SyntaxException e) {
            parsed = null;
        }
        if (!(parsed instanceof List) || !((List<?>) parsed).stream().allMatch(k -> k instanceof String)) {
            throw new HeraldClientException(HeraldClientException.Reason.MALFORMED_PAYLOAD, field, "an onlyKeys field that is not a JSON array of strings");
        }
        List<String> keys = new ArrayList<>();
        for (Object key : (List<?>) parsed) keys.add((String) key);
        return keys;
    }
}
