package org.herald.client;

import java.util.Map;

/**
 * A Herald push, opened: decrypted if it was encrypted, and decoded into the event it tells of.
 * The app shows {@code alert} (when the payload carried one) and acts on {@code event}.
 *
 * @param eventId Herald's event id, {@code <source>:<id>}: drop a push whose id was already
 *     shown (Herald delivers at least once)
 * @param kind what happened ({@code auth}, {@code message.created}, {@code children.updated}, …)
 * @param alert the alert Herald rendered for the device's locale, when the event had one; it
 *     travels only inside an encrypted payload (a plain push's alert is the provider's notification)
 * @param data the event's data as received, without Herald's own keys
 */
public record HeraldNotification(
    String eventId, String kind, Variant variant, Encryption encryption, HeraldAlert alert, HeraldEvent event, Map<String, String> data
) {
    public HeraldNotification {
        data = Map.copyOf(data);
    }

    /** How much of the event's data the push carries; over the provider's limit it is sent smaller. */
    public enum Variant {
        /** All of the event's data. */
        FULL("full"),
        /** {@code children.updated} with {@code added}, {@code changed} and {@code removed} reduced to their keys. */
        ONLY_KEYS("onlyKeys"),
        /** Only the identifying fields ({@code id}, {@code path}, and keys ending in {@code Id} or {@code ID}). */
        TOO_BIG("tooBig"),
        /** The identifying fields only, always: the sender asked to hide the data. */
        HIDDEN("hidden");

        private final String code;

        Variant(String code) {
            this.code = code;
        }

        /** The variant's name in the data map ({@code onlyKeys}). */
        public String code() {
            return code;
        }

        static Variant of(String code) {
            for (Variant variant : values()) {
                if (variant.code.equals(code)) return variant;
            }
            return null;
        }
    }

    /** How the push travelled: in clear, to a device key, or to an email address key. */
    public record Encryption(Scheme scheme, String keyId) {
        public enum Scheme { NONE, AES128GCM, JWE }

        /** In clear (the app's or the event's encryption policy allowed it). */
        public static final Encryption NONE = new Encryption(Scheme.NONE, null);
    }

    /** The integration that sent the event: the event id's prefix before the first {@code :}. */
    public String source() {
        int colon = eventId.indexOf(':');
        return colon < 0 ? eventId : eventId.substring(0, colon);
    }
}
