package org.herald.client;

import java.util.List;

/**
 * What a Herald push tells the app: one record per event of Herald's integrations, so Kotlin's
 * {@code when (event) { is HeraldEvent.ChatMessage -> …; is HeraldEvent.SubscriptionRevoked -> … }}
 * covers them all. A field that is not identifying may be null: the {@code tooBig} and
 * {@code hidden} variants leave it out.
 */
public sealed interface HeraldEvent {
    /**
     * Smart ID style: kinds {@code auth} and {@code sign}. {@code pushId} is the profile the request
     * is for (an app holds several); null in a push from before Herald sent it.
     */
    record AuthenticationRequest(Type type, String messageId, String requestor, String pushId) implements HeraldEvent {
        public enum Type {
            AUTHENTICATION("auth"), SIGNING("sign");

            private final String kind;

            Type(String kind) {
                this.kind = kind;
            }

            /** The event kind: {@code auth} or {@code sign}. */
            public String kind() {
                return kind;
            }
        }
    }

    /** Evernym/Verity style: kind {@code message}, a message for the sponsee to download by {@code msgId}. */
    record SponsorMessage(String msgId, String msgType, String relationshipDid, String senderName) implements HeraldEvent {}

    /** The type of a chat message; null in an event when absent or of a type this kit does not know. */
    enum MessageType {
        TEXT, IMAGE, CUSTOM;

        static MessageType of(String text) {
            if (text == null) return null;
            switch (text) {
                case "text": return TEXT;
                case "image": return IMAGE;
                case "custom": return CUSTOM;
                default: return null;
            }
        }

        /** The type as Herald sends it ({@code text}). */
        public String code() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /** Upstra/Amity style: kind {@code channel.created}; {@code actorId} created the channel. */
    record ChatChannelCreated(String channelId, String actorId, MessageType messageType) implements HeraldEvent {}

    /** Kind {@code member.joined}; {@code actorId} joined. */
    record ChatMemberJoined(String channelId, String actorId, MessageType messageType) implements HeraldEvent {}

    /** Kind {@code message.created}; {@code actorId} posted a message of {@code messageType}. */
    record ChatMessage(String channelId, String actorId, MessageType messageType) implements HeraldEvent {}

    /** Sudo email style: kind {@code email.received}, encrypted to the address's key. */
    record EmailReceived(
        String emailAddressId, String sudoId, String messageId, String owner, String from, String subject, String receivedAt
    ) implements HeraldEvent {}

    /**
     * Webcom datasync style: kind {@code value.changed} at {@code path}. {@code appId} is the
     * Herald app the push is for (Webcom's {@code event.appId}); null in a push from before Herald sent it.
     */
    record ValueChanged(String path, Content content, String appId) implements HeraldEvent {
        /** What the push says of the new value. */
        public sealed interface Content {}

        /** The new value as JSON text (null when the event carried none, e.g. a deletion). */
        public record Value(String json) implements Content {}

        /** The sender hid the data: fetch {@code path}. */
        public record Hidden() implements Content {}

        /** Too big for a push: fetch {@code path}. */
        public record TooBig() implements Content {}
    }

    /** Kind {@code children.updated}: children added, changed or removed under {@code path}. */
    record ChildrenUpdated(String path, Content content, String appId) implements HeraldEvent {
        /** What the push says of the children. */
        public sealed interface Content {}

        /** Each as the JSON text of an object of child key to value (null when none). */
        public record Children(String added, String changed, String removed) implements Content {}

        /** Too big with the values: the keys of each (empty when none). */
        public record Keys(List<String> added, List<String> changed, List<String> removed) implements Content {
            public Keys {
                added = List.copyOf(added);
                changed = List.copyOf(changed);
                removed = List.copyOf(removed);
            }
        }

        /** The sender hid the data: fetch {@code path}. */
        public record Hidden() implements Content {}

        /** Too big even as keys: fetch {@code path}. */
        public record TooBig() implements Content {}
    }

    /**
     * Kind {@code subscription.revoked}: the app no longer hears of {@code path}, and
     * {@code reason} says why (Webcom's {@code DatasyncEvent.Revoked}); null in the {@code hidden}
     * and {@code tooBig} variants, which carry only identifiers.
     */
    record SubscriptionRevoked(String path, String reason, String appId) implements HeraldEvent {}

    /** Any other kind (an app's own events through {@code POST /events}): read the notification's {@code data}. */
    record Other(String kind) implements HeraldEvent {}
}
