package org.herald.client;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.Test;

/**
 * A wrong key, tampered bytes or a damaged map fail with a {@link HeraldClientException} and its
 * reason, never another exception: the cases of the Swift kit's FailureTests, on the real
 * payloads of docs/client.md.
 */
public class FailureTest {
    static Map<String, String> aes128gcm() throws Exception {
        return DocPage.load().dataMap("aes128gcm data map");
    }

    static Map<String, String> jwe() throws Exception {
        return DocPage.load().dataMap("jwe data map");
    }

    static HeraldKeyring keyring() throws Exception {
        DocPage page = DocPage.load();
        return new HeraldKeyring().add(page.deviceKey()).add(page.addressKey());
    }

    static HeraldClientException failure(HeraldKeyring keyring, Map<String, String> data) {
        try {
            HeraldNotification opened = new HeraldNotificationDecoder(keyring).decode(data);
            fail("opened instead of failing: " + opened.kind());
            return null;
        } catch (HeraldClientException error) {
            assertFalse(error.getMessage().isEmpty());
            return error;
        }
    }

    static void expect(HeraldClientException.Reason reason, String field, HeraldKeyring keyring, Map<String, String> data) {
        HeraldClientException error = failure(keyring, data);
        assertEquals(error.getMessage(), reason, error.reason());
        if (field != null) assertEquals(error.getMessage(), field, error.field());
    }

    static Map<String, String> with(Map<String, String> data, String key, String value) {
        Map<String, String> map = new HashMap<>(data);
        map.put(key, value);
        return map;
    }

    @Test
    public void aDeviceKeyOfTheSameIdButAnotherKeyFailsToDecrypt() throws Exception {
        HeraldKeyring other = new HeraldKeyring().add(DeviceKeyPair.generate("phone-2026-11"));
        expect(HeraldClientException.Reason.DECRYPTION_FAILED, "payload", other, aes128gcm());
    }

    @Test
    public void anAddressKeyOfTheSameIdButAnotherKeyFailsToDecrypt() throws Exception {
        HeraldKeyring other = new HeraldKeyring().add(AddressKeyPair.generate("addr-key-1"));
        expect(HeraldClientException.Reason.DECRYPTION_FAILED, "payload", other, jwe());
    }

    @Test
    public void aKeyIdTheKeyringLacksIsUnknown() throws Exception {
        expect(HeraldClientException.Reason.UNKNOWN_KEY, "kid", new HeraldKeyring(), aes128gcm());
        expect(HeraldClientException.Reason.UNKNOWN_KEY, "kid", new HeraldKeyring(), jwe());
    }

    @Test
    public void aDeviceKeyIsNotUsedForAnAddressesPayload() throws Exception {
        Map<String, String> data = jwe();
        HeraldKeyring deviceOnly = new HeraldKeyring().add(DeviceKeyPair.generate(data.get("kid")));
        expect(HeraldClientException.Reason.UNKNOWN_KEY, null, deviceOnly, data);
        expect(HeraldClientException.Reason.MALFORMED_PAYLOAD, null, deviceOnly, with(data, "enc", "aes128gcm"));
    }

    /** Flipping a bit of any byte fails, except in the record size, which RFC 8188 does not authenticate. */
    @Test
    public void everyTamperedByteOfAnAes128gcmPayloadFailsOrOpensTheSameNotification() throws Exception {
        Map<String, String> data = aes128gcm();
        HeraldNotification original = new HeraldNotificationDecoder(keyring()).decode(data);
        byte[] body = Base64Url.decode(data.get("payload"));
        int failed = 0;
        for (int index = 0; index < body.length; index++) {
            byte[] tampered = body.clone();
            tampered[index] ^= 1;
            try {
                HeraldNotification opened = new HeraldNotificationDecoder(keyring()).decode(with(data, "payload", Base64Url.encode(tampered)));
                assertTrue("byte " + index + " flipped and the payload still opened", index >= 16 && index < 20);
                assertEquals(original, opened);
            } catch (HeraldClientException error) {
                failed++;
                assertTrue("byte " + index + ": " + error.getMessage(),
                    error.reason() == HeraldClientException.Reason.DECRYPTION_FAILED || error.reason() == HeraldClientException.Reason.MALFORMED_PAYLOAD);
            }
        }
        assertTrue(failed >= body.length - 4);
    }

    @Test
    public void everyTamperedPartOfAJwePayloadFails() throws Exception {
        Map<String, String> data = jwe();
        String[] parts = data.get("payload").split("\\.", -1);
        assertEquals(5, parts.length);
        for (int index = 0; index < parts.length; index++) {
            byte[] bytes = Base64Url.decode(parts[index]);
            bytes[0] ^= 1;
            String[] tampered = parts.clone();
            tampered[index] = Base64Url.encode(bytes);
            HeraldClientException error = failure(keyring(), with(data, "payload", String.join(".", tampered)));
            assertTrue("part " + index + ": " + error.getMessage(),
                error.reason() == HeraldClientException.Reason.DECRYPTION_FAILED || error.reason() == HeraldClientException.Reason.MALFORMED_PAYLOAD);
        }
    }

    @Test
    public void aJweWhoseHeaderNamesAnotherKeyThanTheMapIsRefused() throws Exception {
        AddressKeyPair renamed = AddressKeyPair.fromPem("renamed", DocPage.load().block("jwe private key"));
        expect(HeraldClientException.Reason.MALFORMED_PAYLOAD, "kid", new HeraldKeyring().add(renamed), with(jwe(), "kid", "renamed"));
    }

    /** Truncated, empty, not base64url, random bytes, random mutations: errors, never another exception nor another notification. Seeded. */
    @Test
    public void damagedPayloadsAreErrorsNeverCrashesNorAnotherNotification() throws Exception {
        Random random = new Random(20261125);
        char[] alphabet = "AZaz09-_.".toCharArray();
        for (Map<String, String> data : List.of(aes128gcm(), jwe())) {
            HeraldNotification original = new HeraldNotificationDecoder(keyring()).decode(data);
            String payload = data.get("payload");
            List<String> damaged = new ArrayList<>(List.of("", "!!!", "A", payload.substring(0, payload.length() / 2),
                payload.substring(0, payload.length() - 1), payload + "A", payload + ".x"));
            for (int i = 0; i < 300; i++) {
                char[] characters = payload.toCharArray();
                for (int j = 0; j <= random.nextInt(5); j++) characters[random.nextInt(characters.length)] = alphabet[random.nextInt(alphabet.length)];
                damaged.add(new String(characters));
            }
            byte[] noise = new byte[200];
            random.nextBytes(noise);
            damaged.add(Base64Url.encode(noise));
            int failed = 0;
            int tried = 0;
            for (String text : damaged) {
                if (text.equals(payload)) continue;
                tried++;
                try {
                    assertEquals("a damaged payload opened to another notification", original, new HeraldNotificationDecoder(keyring()).decode(with(data, "payload", text)));
                } catch (HeraldClientException error) {
                    failed++;
                    boolean expected = error.reason() == HeraldClientException.Reason.DECRYPTION_FAILED
                        || error.reason() == HeraldClientException.Reason.MALFORMED_PAYLOAD
                        || (text.isEmpty() && error.reason() == HeraldClientException.Reason.MISSING_FIELD);
                    assertTrue(error.getMessage(), expected);
                }
            }
            assertTrue("most damage is detected: " + failed + " of " + tried, failed > tried * 9 / 10);
        }
    }

    @Test
    public void anUnknownSchemeIsRefused() throws Exception {
        expect(HeraldClientException.Reason.UNSUPPORTED_SCHEME, "enc", keyring(), with(aes128gcm(), "enc", "aesgcm"));
    }

    @Test
    public void aPlainMapWithoutItsEventIdIsMissingAField() throws Exception {
        expect(HeraldClientException.Reason.MISSING_FIELD, "event", keyring(), Map.of("herald", "1", "kind", "auth", "messageId", "m", "event", ""));
    }

    @Test
    public void aKnownKindWithoutItsIdentifyingFieldIsMissingThatField() throws Exception {
        expect(HeraldClientException.Reason.MISSING_FIELD, "messageId", keyring(), Map.of("herald", "1", "event", "smartid:1", "kind", "auth", "requestor", "Bank"));
        expect(HeraldClientException.Reason.MISSING_FIELD, "path", keyring(), Map.of("herald", "1", "event", "webcom:1", "kind", "value.changed", "value", "1"));
    }

    @Test
    public void anUnknownVariantIsRefused() throws Exception {
        expect(HeraldClientException.Reason.MALFORMED_PAYLOAD, "variant", keyring(),
            Map.of("herald", "1", "event", "webcom:1", "kind", "value.changed", "path", "/a", "variant", "tiny"));
        expect(HeraldClientException.Reason.MALFORMED_PAYLOAD, "variant", keyring(),
            Map.of("herald", "1", "event", "webcom:1", "kind", "value.changed", "path", "/a", "variant", "onlyKeys"));
    }

    @Test
    public void onlyKeysThatAreNotAnArrayOfStringsAreRefused() throws Exception {
        expect(HeraldClientException.Reason.MALFORMED_PAYLOAD, "added", keyring(),
            Map.of("herald", "1", "event", "webcom:1", "kind", "children.updated", "path", "/a", "variant", "onlyKeys", "added", "{\"k\":1}"));
    }
}
