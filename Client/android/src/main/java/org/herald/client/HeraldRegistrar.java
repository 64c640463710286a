package org.herald.client;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The app's own calls to Herald, as its signed-in user: registering this device (or, for Smart
 * ID, its profile ids), removing it, and reading and writing its notification configuration. Each
 * call carries a client token the app's backend minted for the user ({@code Authorization:
 * Bearer}); when Herald answers 401 (the token expired), the registrar asks the provider for a
 * fresh one and tries once more. No API key is ever in the app. Calls block: run them off the
 * main thread.
 */
public final class HeraldRegistrar {
    /** Fetches a client token from the app's backend. */
    @FunctionalInterface
    public interface TokenProvider {
        /** {@code refresh} is true after Herald refused the last token: a cached one must not be given again. */
        String token(boolean refresh) throws Exception;
    }

    /** A configuration and its version ({@code ETag}, for {@link #setConfiguration}). */
    public record Configuration(NotificationConfiguration configuration, String entityTag) {}

    private final String base;
    private final TokenProvider tokenProvider;

    /** {@code gateway} is Herald's public address ({@code https://push.example.com}), {@code app} the app's id there. */
    public HeraldRegistrar(String gateway, String app, TokenProvider tokenProvider) {
        this.base = gateway.replaceAll("/+$", "") + "/v1/apps/" + segment(app);
        this.tokenProvider = tokenProvider;
    }

    /**
     * Registers (or updates) this device under {@code deviceId} for the token's user: the push
     * token of its provider ({@code platform} fcm, hms or apns; null for the OS's own), and the
     * key its pushes are encrypted to (may be null).
     */
    public void registerDevice(String deviceId, String token, String os, String platform, String locale, DeviceKeyPair.Registration key)
            throws HeraldClientException {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("token", token);
        body.put("os", os);
        if (platform != null) body.put("platform", platform);
        if (locale != null) body.put("locale", locale);
        if (key != null) body.put("key", Map.of("keyId", key.keyId(), "p256dh", key.p256dh(), "auth", key.auth()));
        send("PUT", "/devices/" + segment(deviceId), Json.write(body), null);
    }

    /** Smart ID: this device's push token listens to {@code profileIds} (each within the token's {@code pushIds}). */
    public void registerSmartIdDevice(String deviceToken, String os, List<String> profileIds) throws HeraldClientException {
        send("POST", "/smartid/devices", Json.write(Map.of("deviceID", deviceToken, "OS", os, "profileIDs", profileIds)), null);
    }

    /**
     * Removes this device: it gets no more pushes. Works signed out, with no client token: the
     * device's push token ({@code token}, as registered) proves the device is this app's.
     * Repeatable: a device already removed is success.
     */
    public void unregisterDevice(String deviceId, String token) throws HeraldClientException {
        send("POST", "/devices/" + segment(deviceId) + "/unregister", Json.write(Map.of("token", token)), null, false);
    }

    /** The device's notification configuration and its version. */
    public Configuration configuration(String deviceId) throws HeraldClientException {
        Answer answer = send("GET", "/devices/" + segment(deviceId) + "/configuration", null, null);
        return new Configuration(NotificationConfiguration.fromReply(answer.body), answer.entityTag);
    }

    /**
     * Writes the device's configuration; with {@code ifMatch} (the version read), only over that
     * version (else {@code REQUEST_FAILED} with status 412). Answers the new version.
     */
    public String setConfiguration(NotificationConfiguration configuration, String deviceId, String ifMatch) throws HeraldClientException {
        return send("PUT", "/devices/" + segment(deviceId) + "/configuration", configuration.requestBody(), ifMatch).entityTag;
    }

    private record Answer(String body, String entityTag) {}

    /** One call with a client token, again once with a fresh token after a 401. */
    private Answer send(String method, String path, String body, String ifMatch) throws HeraldClientException {
        return send(method, path, body, ifMatch, true);
    }

    /** One call; an {@code authenticated} one carries a client token. */
    private Answer send(String method, String path, String body, String ifMatch, boolean authenticated) throws HeraldClientException {
        for (boolean refresh : new boolean[] {false, true}) {
            String token = null;
            if (authenticated) {
                try {
                    token = tokenProvider.token(refresh);
                } catch (Exception error) {
                    throw new HeraldClientException(HeraldClientException.Reason.UNAUTHORIZED, null, "the token provider failed: " + error, 0);
                }
            }
            int status;
            String text;
            String tag;
            try {
                HttpURLConnection connection = (HttpURLConnection) URI.create(base + path).toURL().openConnection();
                connection.setRequestMethod(method);
                connection.setConnectTimeout(10_000);
                connection.setReadTimeout(20_000);
                if (token != null) connection.setRequestProperty("Authorization", "Bearer " + token);
                if (ifMatch != null) connection.setRequestProperty("If-Match", ifMatch);
                if (body != null) {
                    connection.setDoOutput(true);
                    connection.setRequestProperty("Content-Type", "application/json");
                    try (OutputStream out = connection.getOutputStream()) {
                        out.write(body.getBytes(StandardCharsets.UTF_8));
                    }
                }
                status = connection.getResponseCode();
                InputStream in = status < 400 ? connection.getInputStream() : connection.getErrorStream();
                text = in == null ? "" : new String(in.readAllBytes(), StandardCharsets.UTF_8);
                tag = connection.getHeaderField("ETag");
                connection.disconnect();
            } catch (IOException | IllegalArgumentException error) {
                throw new HeraldClientException(HeraldClientException.Reason.REQUEST_FAILED, null, "Herald did not answer: " + error.getMessage(), 0);
            }
            if (status >= 200 && status < 300) return new Answer(text, tag);
            if (status == 401 && !refresh) continue;
            String detail = "no detail";
            try {
                Object value = Json.parseObject(text).get("detail");
                if (value instanceof String) detail = (String) value;
            } catch (Exception ignored) {
                // Not a problem document: the status says enough.
            }
            HeraldClientException.Reason reason = status == 401 ? HeraldClientException.Reason.UNAUTHORIZED : HeraldClientException.Reason.REQUEST_FAILED;
            throw new HeraldClientException(reason, null, method + " " + path + ": " + status + " " + detail, status);
        }
        throw new HeraldClientException(HeraldClientException.Reason.UNAUTHORIZED, null, method + " " + path + ": the client token was refused", 401);
    }

    /** A path segment percent-encoded (an id may hold {@code /} or spaces). */
    private static String segment(String id) {
        return URLEncoder.encode(id, StandardCharsets.UTF_8).replace("+", "%20");
    }
}
