package org.herald.client;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The kit driven from outside, for the Swift test suites that compare it with the Swift kit and
 * run it against the real executables: one JSON request (in the file named by the first argument,
 * else on stdin), one JSON answer on stdout.
 *
 * <ul>
 *   <li>{@code {"op": "keygen", "deviceKeys": [ids], "addressKeys": [ids]}}: fresh keys, each
 *       with its stored form and its registration.
 *   <li>{@code {"op": "open", "keyring": {"deviceKeys": [stored JSON], "addressKeys": [{"keyId",
 *       "privateKey"}]}, "pushes": [{"data": map} or {"pushKitData": string}]}}: each push opened,
 *       as {@link #canonical} or {@code {"error": {"reason", "field"}}}.
 *   <li>{@code {"op": "register", "gateway", "app", "tokens": [client tokens], "deviceId", "token",
 *       "os"}}: {@link HeraldRegistrar} registers the device and reads its configuration, the token
 *       provider giving {@code tokens} in turn; answers {@code {"refreshes": [each call's refresh
 *       flag], "entityTag"}} or with {@code "error": {"reason", "status"}}.
 *   <li>{@code {"op": "unregister", "gateway", "app", "deviceId", "token"}}: {@link HeraldRegistrar}
 *       removes the device signed out, by its push token, with no client token; answers {@code
 *       {"tokensAsked": n}} or with {@code "error": {"reason", "status"}}.
 * </ul>
 */
public final class KitTool {
    private KitTool() {}

    public static void main(String[] arguments) throws Exception {
        String input = arguments.length > 0
            ? java.nio.file.Files.readString(java.nio.file.Path.of(arguments[0]), StandardCharsets.UTF_8)
            : new String(System.in.readAllBytes(), StandardCharsets.UTF_8);
        Map<String, Object> request = Json.parseObject(input);
        Object answer;
        switch (String.valueOf(request.get("op"))) {
            case "keygen": answer = keygen(request); break;
            case "open": answer = open(request); break;
            case "register": answer = register(request); break;
            case "unregister": answer = unregister(request); break;
            default: throw new IOException("unknown op " + request.get("op"));
        }
        System.out.write(Json.write(answer).getBytes(StandardCharsets.UTF_8));
        System.out.flush();
    }

    private static Map<String, Object> keygen(Map<String, Object> request) throws Exception {
        List<Object> devices = new ArrayList<>();
        for (Object id : list(request.get("deviceKeys"))) {
            DeviceKeyPair key = DeviceKeyPair.generate((String) id);
            Map<String, Object> entry = new LinkedHashMap<>();
            entry.put("stored", Json.parseObject(key.toJson()));
            entry.put("registration", Json.parseObject(key.registration().toJson()));
            devices.add(entry);
        }
        List<Object> addresses = new ArrayList<>();
        for (Object id : list(request.get("addressKeys"))) {
            AddressKeyPair key = AddressKeyPair.generate((String) id);
            Map<String, Object> entry = new LinkedHashMap<>();
            entry.put("stored", Map.of("keyId", key.keyId(), "privateKey", key.privateKeyPem()));
            entry.put("registration", Json.parseObject(key.registration().toJson()));
            addresses.add(entry);
        }
        return Map.of("deviceKeys", devices, "addressKeys", addresses);
    }

    private static Map<String, Object> register(Map<String, Object> request) {
        List<?> tokens = list(request.get("tokens"));
        List<Object> refreshes = new ArrayList<>();
        HeraldRegistrar registrar = new HeraldRegistrar((String) request.get("gateway"), (String) request.get("app"), refresh -> {
            refreshes.add(refresh);
            return (String) tokens.get(Math.min(refreshes.size(), tokens.size()) - 1);
        });
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("refreshes", refreshes);
        try {
            String deviceId = (String) request.get("deviceId");
            registrar.registerDevice(deviceId, (String) request.get("token"), (String) request.get("os"), null, null, null);
            answer.put("entityTag", registrar.configuration(deviceId).entityTag());
        } catch (HeraldClientException error) {
            answer.put("error", Map.of("reason", error.reason().code(), "status", error.status()));
        }
        return answer;
    }

    private static Map<String, Object> unregister(Map<String, Object> request) {
        int[] asked = {0};
        HeraldRegistrar registrar = new HeraldRegistrar((String) request.get("gateway"), (String) request.get("app"), refresh -> {
            asked[0]++;
            throw new IllegalStateException("signed out: no client token");
        });
        Map<String, Object> answer = new LinkedHashMap<>();
        try {
            registrar.unregisterDevice((String) request.get("deviceId"), (String) request.get("token"));
        } catch (HeraldClientException error) {
            answer.put("error", Map.of("reason", error.reason().code(), "status", error.status()));
        }
        answer.put("tokensAsked", asked[0]);
        return answer;
    }

    private static Map<String, Object> open(Map<String, Object> request) throws Exception {
        Map<?, ?> keys = (Map<?, ?>) request.get("keyring");
        HeraldKeyring keyring = new HeraldKeyring();
        if (keys != null) {
            for (Object stored : list(keys.get("deviceKeys"))) keyring.add(DeviceKeyPair.fromJson(Json.write(stored)));
            for (Object stored : list(keys.get("addressKeys"))) {
                Map<?, ?> object = (Map<?, ?>) stored;
                keyring.add(AddressKeyPair.fromPem((String) object.get("keyId"), (String) object.get("privateKey")));
            }
        }
        HeraldNotificationDecoder decoder = new HeraldNotificationDecoder(keyring);
        List<Object> results = new ArrayList<>();
        for (Object item : list(request.get("pushes"))) {
            Map<?, ?> push = (Map<?, ?>) item;
            Map<String, Object> result = new LinkedHashMap<>();
            try {
                HeraldNotification opened;
                if (push.containsKey("pushKitData")) {
                    String text = (String) push.get("pushKitData");
                    result.put("isHerald", HeraldData.isHeraldPushKitData(text));
                    opened = decoder.decodePushKit(text);
                } else {
                    Map<String, String> data = new HashMap<>();
                    for (Map.Entry<?, ?> entry : ((Map<?, ?>) push.get("data")).entrySet()) data.put((String) entry.getKey(), (String) entry.getValue());
                    result.put("isHerald", HeraldData.isHerald(data));
                    opened = decoder.decode(data);
                }
                result.put("notification", canonical(opened));
            } catch (HeraldClientException error) {
                Map<String, Object> failure = new LinkedHashMap<>();
                failure.put("reason", error.reason().code());
                failure.put("field", error.field());
                failure.put("message", error.getMessage());
                result.put("error", failure);
            }
            results.add(result);
        }
        return Map.of("results", results);
    }

    private static List<?> list(Object value) {
        return value == null ? List.of() : (List<?>) value;
    }

    /** A notification as plain JSON, every field named, for a comparison field by field. */
    static Map<String, Object> canonical(HeraldNotification push) {
        Map<String, Object> object = new LinkedHashMap<>();
        object.put("eventId", push.eventId());
        object.put("kind", push.kind());
        object.put("variant", push.variant().code());
        Map<String, Object> encryption = new LinkedHashMap<>();
        encryption.put("scheme", push.encryption().scheme().name().toLowerCase(java.util.Locale.ROOT));
        encryption.put("keyId", push.encryption().keyId());
        object.put("encryption", encryption);
        if (push.alert() == null) {
            object.put("alert", null);
        } else {
            Map<String, Object> alert = new LinkedHashMap<>();
            alert.put("title", push.alert().title());
            alert.put("body", push.alert().body());
            object.put("alert", alert);
        }
        object.put("data", push.data());
        object.put("event", canonical(push.event()));
        return object;
    }

    static Map<String, Object> canonical(HeraldEvent event) {
        Map<String, Object> object = new LinkedHashMap<>();
        if (event instanceof HeraldEvent.AuthenticationRequest request) {
            object.put("type", "authenticationRequest");
            object.put("requestType", request.type().kind());
            object.put("messageId", request.messageId());
            object.put("requestor", request.requestor());
            object.put("pushId", request.pushId());
        } else if (event instanceof HeraldEvent.SponsorMessage message) {
            object.put("type", "sponsorMessage");
            object.put("msgId", message.msgId());
            object.put("msgType", message.msgType());
            object.put("relationshipDid", message.relationshipDid());
            object.put("senderName", message.senderName());
        } else if (event instanceof HeraldEvent.ChatChannelCreated chat) {
            chat(object, "chatChannelCreated", chat.channelId(), chat.actorId(), chat.messageType());
        } else if (event instanceof HeraldEvent.ChatMemberJoined chat) {
            chat(object, "chatMemberJoined", chat.channelId(), chat.actorId(), chat.messageType());
        } else if (event instanceof HeraldEvent.ChatMessage chat) {
            chat(object, "chatMessage", chat.channelId(), chat.actorId(), chat.messageType());
        } else if (event instanceof HeraldEvent.EmailReceived email) {
            object.put("type", "emailReceived");
            object.put("emailAddressId", email.emailAddressId());
            object.put("sudoId", email.sudoId());
            object.put("messageId", email.messageId());
            object.put("owner", email.owner());
            object.put("from", email.from());
            object.put("subject", email.subject());
            object.put("receivedAt", email.receivedAt());
        } else if (event instanceof HeraldEvent.ValueChanged change) {
            object.put("type", "valueChanged");
            object.put("path", change.path());
            object.put("appId", change.appId());
            Map<String, Object> content = new LinkedHashMap<>();
            if (change.content() instanceof HeraldEvent.ValueChanged.Value value) {
                content.put("type", "value");
                content.put("json", value.json());
            } else {
                content.put("type", change.content() instanceof HeraldEvent.ValueChanged.Hidden ? "hidden" : "tooBig");
            }
            object.put("content", content);
        } else if (event instanceof HeraldEvent.ChildrenUpdated update) {
            object.put("type", "childrenUpdated");
            object.put("path", update.path());
            object.put("appId", update.appId());
            Map<String, Object> content = new LinkedHashMap<>();
            if (update.content() instanceof HeraldEvent.ChildrenUpdated.Children children) {
                content.put("type", "children");
                content.put("added", children.added());
                content.put("changed", children.changed());
                content.put("removed", children.removed());
            } else if (update.content() instanceof HeraldEvent.ChildrenUpdated.Keys keys) {
                content.put("type", "keys");
                content.put("added", keys.added());
                content.put("changed", keys.changed());
                content.put("removed", keys.removed());
            } else {
                content.put("type", update.content() instanceof HeraldEvent.ChildrenUpdated.Hidden ? "hidden" : "tooBig");
            }
            object.put("content", content);
        } else if (event instanceof HeraldEvent.SubscriptionRevoked revocation) {
            object.put("type", "subscriptionRevoked");
            object.put("path", revocation.path());
            object.put("reason", revocation.reason());
            object.put("appId", revocation.appId());
        } else if (event instanceof HeraldEvent.Other other) {
            object.put("type", "other");
            object.put("kind", other.kind());
        }
        return object;
    }

    private static void chat(Map<String, Object> object, String type, String channelId, String actorId, HeraldEvent.MessageType messageType) {
        object.put("type", type);
        object.put("channelId", channelId);
        object.put("actorId", actorId);
        object.put("messageType", messageType == null ? null : messageType.code());
    }
}
