package org.herald.client;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.Test;

/** The router calls the handler's method for the push's type, leaves other senders' pushes alone, and reports a push it cannot open. */
public class HeraldPushRouterTest {
    static final class Recorder implements HeraldNotificationHandler {
        final List<String> calls = new ArrayList<>();

        @Override
        public void onChatMessage(HeraldEvent.ChatMessage message, HeraldNotification push) {
            calls.add("chatMessage " + message.channelId() + " " + push.alert().body());
        }

        @Override
        public void onEmailMessageReceived(HeraldEvent.EmailReceived email, HeraldNotification push) {
            calls.add("email " + email.messageId());
        }

        @Override
        public void onSubscriptionRevoked(HeraldEvent.SubscriptionRevoked revocation, HeraldNotification push) {
            calls.add("revoked " + revocation.path() + " " + revocation.reason());
        }

        @Override
        public void onAuthenticationRequest(HeraldEvent.AuthenticationRequest request, HeraldNotification push) {
            calls.add("auth " + request.messageId() + " for " + request.pushId());
        }

        @Override
        public void onFailure(HeraldClientException error, Map<String, String> data) {
            calls.add("failure " + error.reason().code());
        }
    }

    @Test
    public void eachPushReachesTheMethodForItsType() throws Exception {
        DocPage page = DocPage.load();
        Recorder recorder = new Recorder();
        HeraldPushRouter router = new HeraldPushRouter(new HeraldKeyring().add(page.deviceKey()).add(page.addressKey()), recorder);
        assertTrue(router.route(page.dataMap("aes128gcm data map")));
        assertTrue(router.route(page.dataMap("jwe data map")));
        assertTrue(router.routePushKit(page.block("webcom revocation data map")));
        assertEquals(List.of("chatMessage ch-9 Lunch at 12?", "email mail-1", "revoked /boards/1 permission denied"), recorder.calls);
    }

    @Test
    public void aSignInRequestNamesTheProfileItIsFor() {
        // A Smart ID AUTH request's FCM data map as Herald sends it (the encryption stage's plain form).
        Recorder recorder = new Recorder();
        HeraldPushRouter router = new HeraldPushRouter(new HeraldKeyring(), recorder);
        assertTrue(router.route(Map.of("herald", "1", "event", "smartid:7bcc1708", "kind", "auth", "messageId", "7bcc1708",
            "pushId", "74db355b-ecec-48b4-a4d8-9e6f13084bab", "requestor", "Acme", "type", "AUTH")));
        assertEquals(List.of("auth 7bcc1708 for 74db355b-ecec-48b4-a4d8-9e6f13084bab"), recorder.calls);
    }

    @Test
    public void anotherSendersPushIsLeftToTheCaller() {
        Recorder recorder = new Recorder();
        HeraldPushRouter router = new HeraldPushRouter(new HeraldKeyring(), recorder);
        assertFalse(router.route(Map.of("google.c.a.e", "1", "type", "chat")));
        assertFalse(router.routePushKit("{\"type\":\"promo\"}"));
        assertFalse(router.routePushKit("not json"));
        assertTrue(recorder.calls.isEmpty());
    }

    @Test
    public void aHeraldPushThatCannotBeOpenedIsReportedAsAFailure() throws Exception {
        Recorder recorder = new Recorder();
        Map<String, String> data = new HashMap<>(DocPage.load().dataMap("aes128gcm data map"));
        assertTrue(new HeraldPushRouter(new HeraldKeyring(), recorder).route(data));
        assertEquals(List.of("failure unknownKey"), recorder.calls);
    }
}
