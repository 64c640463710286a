package org.herald.client;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.Test;

/** docs/client.md's worked examples open with the Java kit, byte for byte, to the events the page names. */
public class ClientDocTest {
    @Test
    public void theAes128gcmExampleDecryptsToThePagesPlaintextByteForByte() throws Exception {
        DocPage page = DocPage.load();
        DeviceKeyPair key = page.deviceKey();
        Map<String, String> data = page.dataMap("aes128gcm data map");
        byte[] body = Base64Url.decode(data.get("payload"));
        assertEquals("the page says 279 bytes", 279, body.length);
        assertArrayEquals(page.block("aes128gcm plaintext").getBytes(StandardCharsets.UTF_8), key.decrypt(body));
    }

    @Test
    public void theAes128gcmExampleKeysPublicPointIsThePagesP256dh() throws Exception {
        DocPage page = DocPage.load();
        assertEquals(page.values("aes128gcm keys").get("p256dh"), page.deviceKey().registration().p256dh());
        assertEquals(page.values("aes128gcm keys").get("auth"), page.deviceKey().registration().auth());
    }

    @Test
    public void theAes128gcmExampleOpensToItsChatMessageAndAlert() throws Exception {
        DocPage page = DocPage.load();
        Map<String, String> data = page.dataMap("aes128gcm data map");
        assertTrue(HeraldData.isHerald(data));
        HeraldNotification push = new HeraldNotificationDecoder(new HeraldKeyring().add(page.deviceKey())).decode(data);
        assertEquals(new HeraldEvent.ChatMessage("ch-9", "ann", HeraldEvent.MessageType.TEXT), push.event());
        assertEquals(new HeraldAlert("Ann (Design)", "Lunch at 12?"), push.alert());
        assertEquals(new HeraldNotification.Encryption(HeraldNotification.Encryption.Scheme.AES128GCM, "phone-2026-11"), push.encryption());
    }

    @Test
    public void theJweExampleDecryptsToThePagesPlaintextByteForByte() throws Exception {
        DocPage page = DocPage.load();
        String compact = page.dataMap("jwe data map").get("payload");
        assertArrayEquals(page.block("jwe plaintext").getBytes(StandardCharsets.UTF_8), page.addressKey().decrypt(compact).plaintext());
    }

    @Test
    public void theJweExamplesContentKeyIsThePagesCek() throws Exception {
        DocPage page = DocPage.load();
        String[] parts = page.jweParts();
        assertEquals(page.values("jwe steps").get("cek"), DocPage.hex(page.jweContentKey()));
        assertEquals(page.values("jwe steps").get("iv"), DocPage.hex(Base64Url.decode(parts[2])));
        assertEquals(page.values("jwe steps").get("tag"), DocPage.hex(Base64Url.decode(parts[4])));
    }

    @Test
    public void theJweExamplesPublicKeyIsThePagesPublicKey() throws Exception {
        DocPage page = DocPage.load();
        assertEquals(page.block("jwe public key"), page.addressKey().registration().publicKey());
    }

    @Test
    public void theJweExampleOpensToItsEmail() throws Exception {
        DocPage page = DocPage.load();
        HeraldNotification push = new HeraldNotificationDecoder(new HeraldKeyring().add(page.addressKey())).decode(page.dataMap("jwe data map"));
        assertEquals(new HeraldEvent.EmailReceived("addr-1", "sudo-1", "mail-1", "owner-1", "alice@example.com", "Lunch?", "2026-11-21T10:00:00Z"), push.event());
        assertNull(push.alert());
        assertEquals(new HeraldNotification.Encryption(HeraldNotification.Encryption.Scheme.JWE, "addr-key-1"), push.encryption());
    }

    @Test
    public void theWebcomRevocationExampleOpensToItsReasonAndAppId() throws Exception {
        HeraldNotification push = new HeraldNotificationDecoder().decode(DocPage.load().dataMap("webcom revocation data map"));
        assertEquals(new HeraldEvent.SubscriptionRevoked("/boards/1", "permission denied", "demo"), push.event());
        assertEquals(HeraldNotification.Encryption.NONE, push.encryption());
        assertEquals("webcom:3f0c9a52", push.eventId());
        assertEquals("webcom", push.source());
    }
}
