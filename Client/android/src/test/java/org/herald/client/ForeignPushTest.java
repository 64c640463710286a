package org.herald.client;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.util.List;
import java.util.Map;
import org.junit.Test;

/** Apps get pushes from other senders too: those are recognised as foreign, never opened as Herald's. */
public class ForeignPushTest {
    static final List<Map<String, String>> FOREIGN = List.of(
        Map.of(),
        Map.of("google.c.a.e", "1", "google.c.a.c_id", "123", "gcm.n.e", "1"),
        Map.of("type", "chat", "event", "message", "kind", "text"),
        Map.of("enc", "aes128gcm", "kid", "k", "payload", "AAAA"),
        Map.of("herald", "", "event", "e", "kind", "k"),
        Map.of("herald", "v1", "event", "e", "kind", "k"),
        Map.of("herald", "1"),
        Map.of("herald", "1", "event", "e"),
        Map.of("herald", "1", "enc", "aes128gcm", "kid", "k"));

    @Test
    public void aPushFromAnotherSourceIsNotHeralds() {
        for (Map<String, String> data : FOREIGN) assertFalse(data.toString(), HeraldData.isHerald(data));
    }

    @Test
    public void aMapWithoutTheHeraldKeyIsRefusedAsNotHeralds() {
        try {
            new HeraldNotificationDecoder().decode(Map.of("type", "chat", "event", "message", "kind", "text"));
            fail("opened");
        } catch (HeraldClientException error) {
            assertEquals(HeraldClientException.Reason.NOT_HERALD, error.reason());
        }
    }

    @Test
    public void aLaterFormatVersionIsHeraldsButNotReadByThisKit() {
        Map<String, String> data = Map.of("herald", "2", "event", "e", "kind", "k");
        assertTrue(HeraldData.isHerald(data));
        try {
            new HeraldNotificationDecoder().decode(data);
            fail("opened");
        } catch (HeraldClientException error) {
            assertEquals(HeraldClientException.Reason.UNSUPPORTED_VERSION, error.reason());
        }
    }

    @Test
    public void pushKitDataThatIsNotAJsonObjectOfStringsIsNotHeralds() {
        for (String text : List.of("", "not json", "[1]", "{\"herald\":1,\"event\":\"e\",\"kind\":\"k\"}", "{\"herald\":\"1\",\"event\":\"e\",\"kind\":\"k\"} x")) {
            assertNull(text, HeraldData.fromPushKitData(text));
            assertFalse(text, HeraldData.isHeraldPushKitData(text));
        }
        assertTrue(HeraldData.isHeraldPushKitData("{\"herald\":\"1\",\"event\":\"e\",\"kind\":\"k\"}"));
    }
}
