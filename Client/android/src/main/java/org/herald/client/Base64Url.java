package org.herald.client;

import java.util.Base64;

/**
 * Base64url without padding (RFC 4648 §5), the encoding of Web Push keys, JWE parts and Herald's
 * encrypted payloads. Decoding also takes padding and the standard alphabet, as the Swift kit
 * does, so keys pasted in either form work.
 */
final class Base64Url {
    private Base64Url() {}

    static String encode(byte[] bytes) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    /** The bytes of {@code text}, or null when it is not base64 or base64url. */
    static byte[] decode(String text) {
        int start = 0;
        int end = text.length();
        while (start < end && isSpace(text.charAt(start))) start++;
        while (end > start && (isSpace(text.charAt(end - 1)) || text.charAt(end - 1) == '=')) end--;
        String body = text.substring(start, end);
        if (body.length() % 4 == 1) return null;
        boolean standard = body.indexOf('+') >= 0 || body.indexOf('/') >= 0;
        try {
            return (standard ? Base64.getDecoder() : Base64.getUrlDecoder()).decode(body);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    private static boolean isSpace(char c) {
        return c == ' ' || c == '\n' || c == '\r' || c == '\t';
    }
}
