package org.herald.client;

import java.nio.charset.CharacterCodingException;
import java.util.HashMap;
import java.util.Map;

/**
 * Opens Herald pushes with the app's keys: recognises the data map, decrypts an encrypted one
 * with the key its {@code kid} names, and decodes the event. Cheap to make and safe to share
 * between threads.
 */
public final class HeraldNotificationDecoder {
    private final HeraldKeyring keyring;

    public HeraldNotificationDecoder(HeraldKeyring keyring) {
        this.keyring = keyring;
    }

    /** A decoder without keys: it opens plain pushes only. */
    public HeraldNotificationDecoder() {
        this(new HeraldKeyring());
    }

    /**
     * Opens the data map of a push (FCM's {@code RemoteMessage.getData()}). A push from another
     * source fails with {@code NOT_HERALD}; a payload for a key the keyring lacks with
     * {@code UNKNOWN_KEY}; a tampered payload or one for another key with {@code DECRYPTION_FAILED}.
     */
    public HeraldNotification decode(Map<String, String> data) throws HeraldClientException {
        String version = data.get("herald");
        if (version == null) {
            throw new HeraldClientException(HeraldClientException.Reason.NOT_HERALD, "herald", "the data map has no herald key: the push is not Herald's");
        }
        if (!version.equals(HeraldData.VERSION)) {
            throw new HeraldClientException(HeraldClientException.Reason.UNSUPPORTED_VERSION, "herald",
                "format version " + version + "; this kit reads version " + HeraldData.VERSION);
        }
        String scheme = data.get("enc");
        if (scheme == null) return decodePlain(data, null, HeraldNotification.Encryption.NONE);
        String keyId = required("kid", data);
        String payload = required("payload", data);
        byte[] plaintext;
        HeraldNotification.Encryption encryption;
        if (scheme.equals(WebPushDecryption.SCHEME)) {
            DeviceKeyPair key = keyring.deviceKey(keyId);
            if (key == null) {
                throw new HeraldClientException(HeraldClientException.Reason.UNKNOWN_KEY, "kid", "no device key with id " + keyId + " in the keyring");
            }
            byte[] body = Base64Url.decode(payload);
            if (body == null) throw new HeraldClientException(HeraldClientException.Reason.MALFORMED_PAYLOAD, "payload", "not base64url");
            plaintext = key.decrypt(body);
            encryption = new HeraldNotification.Encryption(HeraldNotification.Encryption.Scheme.AES128GCM, keyId);
        } else if (scheme.equals(JweDecryption.SCHEME)) {
            AddressKeyPair key = keyring.addressKey(keyId);
            if (key == null) {
                throw new HeraldClientException(HeraldClientException.Reason.UNKNOWN_KEY, "kid", "no address key with id " + keyId + " in the keyring");
            }
            JweDecryption.Opened opened = key.decrypt(payload);
            if (opened.keyId() != null && !opened.keyId().equals(keyId)) {
                throw new HeraldClientException(HeraldClientException.Reason.MALFORMED_PAYLOAD, "kid",
                    "the JWE header names key " + opened.keyId() + ", the data map " + keyId);
            }
            plaintext = opened.plaintext();
            encryption = new HeraldNotification.Encryption(HeraldNotification.Encryption.Scheme.JWE, keyId);
        } else {
            throw new HeraldClientException(HeraldClientException.Reason.UNSUPPORTED_SCHEME, "enc",
                "scheme " + scheme + "; this kit reads " + WebPushDecryption.SCHEME + " and " + JweDecryption.SCHEME);
        }
        Map<String, String> inner = new HashMap<>();
        HeraldAlert alert = readPlaintext(plaintext, inner);
        if (!HeraldData.VERSION.equals(inner.get("herald"))) {
            throw new HeraldClientException(HeraldClientException.Reason.UNSUPPORTED_VERSION, "herald",
                "the decrypted map's format version is " + (inner.containsKey("herald") ? inner.get("herald") : "absent")
                    + "; this kit reads version " + HeraldData.VERSION);
        }
        return decodePlain(inner, alert, encryption);
    }

    /** Opens the data string of a Push Kit push ({@code RemoteMessage.getData()}). */
    public HeraldNotification decodePushKit(String data) throws HeraldClientException {
        Map<String, String> map = HeraldData.fromPushKitData(data);
        if (map == null) {
            throw new HeraldClientException(HeraldClientException.Reason.NOT_HERALD, null, "the Push Kit data is not a JSON object of strings: the push is not Herald's");
        }
        return decode(map);
    }

    /** The decrypted JSON: an object of strings, and {@code alert} an object of strings, into {@code map}. */
    private static HeraldAlert readPlaintext(byte[] plaintext, Map<String, String> map) throws HeraldClientException {
        Map<String, Object> object;
        try {
            object = Json.parseObject(JweDecryption.strictUtf8(plaintext));
        } catch (Json.SyntaxException | CharacterCodingException e) {
            throw new HeraldClientException(HeraldClientException.Reason.MALFORMED_PAYLOAD, "payload", "the decrypted payload is not a JSON object");
        }
        HeraldAlert alert = null;
        for (Map.Entry<String, Object> entry : object.entrySet()) {
            Object value = entry.getValue();
            if (entry.getKey().equals("alert")) {
                if (!(value instanceof Map) || !((Map<?, ?>) value).values().stream().allMatch(v -> v instanceof String)) {
                    throw new HeraldClientException(HeraldClientException.Reason.MALFORMED_PAYLOAD, "alert", "the alert is not an object of title and body strings");
                }
                Map<?, ?> fields = (Map<?, ?>) value;
                alert = new HeraldAlert((String) fields.get("title"), (String) fields.get("body"));
            } else if (value instanceof String) {
                map.put(entry.getKey(), (String) value);
            } else {
                throw new HeraldClientException(HeraldClientException.Reason.MALFORMED_PAYLOAD, entry.getKey(), "a value of the decrypted map is not a string");
            }
        }
        return alert;
    }

    private static HeraldNotification decodePlain(Map<String, String> map, HeraldAlert alert, HeraldNotification.Encryption encryption)
        throws HeraldClientException {
        String eventId = required("event", map);
        String kind = required("kind", map);
        HeraldNotification.Variant variant = HeraldNotification.Variant.FULL;
        String name = map.get("variant");
        if (name != null) {
            variant = HeraldNotification.Variant.of(name);
            if (variant == null || variant == HeraldNotification.Variant.FULL) {
                throw new HeraldClientException(HeraldClientException.Reason.MALFORMED_PAYLOAD, "variant",
                    "variant " + name + "; this kit reads onlyKeys, tooBig and hidden");
            }
        }
        Map<String, String> data = new HashMap<>();
        for (Map.Entry<String, String> entry : map.entrySet()) {
            if (!HeraldData.RESERVED_KEYS.contains(entry.getKey())) data.put(entry.getKey(), entry.getValue());
        }
        HeraldEvent event = HeraldEventDecoding.event(kind, variant, data);
        return new HeraldNotification(eventId, kind, variant, encryption, alert, event, data);
    }

    static String required(String key, Map<String, String> map) throws HeraldClientException {
        String value = map.get(key);
        if (value == null || value.isEmpty()) {
            throw new HeraldClientException(HeraldClientException.Reason.MISSING_FIELD, key, "the data map has no " + key);
        }
        return value;
    }
}
