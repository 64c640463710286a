package org.herald.client;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * The data map of a push as the platforms hand it over, and the rule that tells Herald's pushes
 * from others'. A Herald push's map has {@code herald} (the format version, digits) and either
 * {@code event} and {@code kind} (plain) or {@code enc}, {@code kid} and {@code payload}
 * (encrypted). See docs/client.md.
 */
public final class HeraldData {
    /** The format version this kit reads. */
    public static final String VERSION = "1";
    /** The keys Herald writes into the data map itself; the event's own data never uses them. */
    public static final Set<String> RESERVED_KEYS = Set.of("herald", "event", "kind", "variant", "enc", "kid", "payload", "alert");

    private HeraldData() {}

    /** Whether {@code data} (FCM's {@code RemoteMessage.getData()}) is a Herald push, of any format version. */
    public static boolean isHerald(Map<String, String> data) {
        if (data == null) return false;
        String version = data.get("herald");
        if (version == null || version.isEmpty()) return false;
        for (int i = 0; i < version.length(); i++) {
            char c = version.charAt(i);
            if (c < '0' || c > '9') return false;
        }
        boolean encrypted = data.get("enc") != null && data.get("kid") != null && data.get("payload") != null;
        boolean plain = data.get("event") != null && data.get("kind") != null;
        return encrypted || plain;
    }

    /**
     * The map Push Kit delivers as one JSON string ({@code RemoteMessage.getData()}), or null when
     * it is not a JSON object of strings.
     */
    public static Map<String, String> fromPushKitData(String json) {
        if (json == null) return null;
        Map<String, Object> object;
        try {
            object = Json.parseObject(json);
        } catch (Json.SyntaxException e) {
            return null;
        }
        Map<String, String> map = new HashMap<>();
        for (Map.Entry<String, Object> entry : object.entrySet()) {
            if (!(entry.getValue() instanceof String)) return null;
            map.put(entry.getKey(), (String) entry.getValue());
        }
        return map;
    }

    /** Whether a Push Kit data string is a Herald push. */
    public static boolean isHeraldPushKitData(String json) {
        return isHerald(fromPushKitData(json));
    }
}
