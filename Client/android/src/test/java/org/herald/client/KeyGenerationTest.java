package org.herald.client;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.security.KeyFactory;
import java.security.interfaces.RSAPublicKey;
import java.security.spec.X509EncodedKeySpec;
import java.util.Base64;
import java.util.Map;
import org.junit.Test;

/** The keys the kit makes are registered exactly as the registration API takes them, and stored and read back unchanged. */
public class KeyGenerationTest {
    @Test
    public void aGeneratedDeviceKeyIsRegisteredAsTheUncompressedPointAndA16ByteSecret() throws Exception {
        DeviceKeyPair.Registration registration = DeviceKeyPair.generate("k-1").registration();
        byte[] point = Base64Url.decode(registration.p256dh());
        assertEquals(65, point.length);
        assertEquals(4, point[0]);
        assertEquals(16, Base64Url.decode(registration.auth()).length);
        assertFalse("base64url without padding", registration.p256dh().contains("=") || registration.auth().contains("="));
        // The point is on P-256: the JDK accepts it for ECDH.
        javax.crypto.KeyAgreement agreement = javax.crypto.KeyAgreement.getInstance("ECDH");
        agreement.init(DeviceKeyPair.generate("other").privateKey());
        agreement.doPhase(WebPushDecryption.publicKey(point), true);
        assertEquals(32, agreement.generateSecret().length);
    }

    @Test
    public void theRegistrationIsTheJsonTheApiTakes() throws Exception {
        Map<String, Object> device = Json.parseObject(DeviceKeyPair.generate("k-1").registration().toJson());
        assertEquals(java.util.Set.of("keyId", "p256dh", "auth"), device.keySet());
        Map<String, Object> address = Json.parseObject(AddressKeyPair.generate("a-1").registration().toJson());
        assertEquals(java.util.Set.of("keyId", "publicKey"), address.keySet());
    }

    @Test
    public void twoGeneratedDeviceKeysDiffer() {
        DeviceKeyPair first = DeviceKeyPair.generate("k");
        DeviceKeyPair second = DeviceKeyPair.generate("k");
        assertNotEquals(first.registration().p256dh(), second.registration().p256dh());
        assertNotEquals(first.registration().auth(), second.registration().auth());
    }

    @Test
    public void aGeneratedAddressKeyIsRegisteredAsSpkiPem() throws Exception {
        for (int bits : new int[] {2048, 3072}) {
            String pem = AddressKeyPair.generate("a-1", bits).registration().publicKey();
            assertTrue(pem, pem.startsWith("-----BEGIN PUBLIC KEY-----\n") && pem.endsWith("\n-----END PUBLIC KEY-----"));
            String body = pem.replace("-----BEGIN PUBLIC KEY-----", "").replace("-----END PUBLIC KEY-----", "").replace("\n", "");
            RSAPublicKey key = (RSAPublicKey) KeyFactory.getInstance("RSA").generatePublic(new X509EncodedKeySpec(Base64.getDecoder().decode(body)));
            assertEquals(bits, key.getModulus().bitLength());
        }
    }

    @Test
    public void anAddressKeySizeHeraldDoesNotTakeIsRefused() {
        for (int bits : new int[] {1024, 2047, 4104, 8192}) {
            try {
                AddressKeyPair.generate("a", bits);
                fail(bits + " bits accepted");
            } catch (HeraldClientException error) {
                assertEquals(HeraldClientException.Reason.INVALID_KEY, error.reason());
            }
        }
    }

    /** Stored and read back, a key registers the same public values: the public point is found again from the scalar alone (both of its y parities among 24 keys). */
    @Test
    public void storedKeysReadBackTheSameKeys() throws Exception {
        for (int i = 0; i < 24; i++) {
            DeviceKeyPair device = DeviceKeyPair.generate("k-" + i);
            DeviceKeyPair stored = DeviceKeyPair.fromJson(device.toJson());
            assertEquals(device.registration(), stored.registration());
        }
        AddressKeyPair address = AddressKeyPair.generate("a-1");
        AddressKeyPair storedAddress = AddressKeyPair.fromPem("a-1", address.privateKeyPem());
        assertEquals(address.registration(), storedAddress.registration());
    }

    /** A key stored as PKCS #1 ({@code BEGIN RSA PRIVATE KEY}, as OpenSSL's older tools write it) reads as the same key. */
    @Test
    public void aPkcs1AddressKeyIsReadAsTheSameKey() throws Exception {
        AddressKeyPair key = AddressKeyPair.generate("a-1");
        byte[] pkcs8 = key.privateKey().getEncoded();
        // PKCS #8: SEQUENCE { INTEGER 0, SEQUENCE { rsaEncryption, NULL }, OCTET STRING { PKCS #1 } }.
        int at = headerLength(pkcs8, 0);
        at += 3; // INTEGER 0
        at += headerLength(pkcs8, at) + contentLength(pkcs8, at);
        byte[] pkcs1 = java.util.Arrays.copyOfRange(pkcs8, at + headerLength(pkcs8, at), at + headerLength(pkcs8, at) + contentLength(pkcs8, at));
        String pem = "-----BEGIN RSA PRIVATE KEY-----\n" + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(pkcs1) + "\n-----END RSA PRIVATE KEY-----\n";
        assertEquals(key.registration().publicKey(), AddressKeyPair.fromPem("a-1", pem).registration().publicKey());
    }

    private static int headerLength(byte[] der, int at) {
        int first = der[at + 1] & 0xFF;
        return first < 0x80 ? 2 : 2 + (first & 0x7F);
    }

    private static int contentLength(byte[] der, int at) {
        int first = der[at + 1] & 0xFF;
        if (first < 0x80) return first;
        int length = 0;
        for (int i = 0; i < (first & 0x7F); i++) length = (length << 8) | (der[at + 2 + i] & 0xFF);
        return length;
    }

    @Test
    public void aSwiftStoredDeviceKeyIsReadAsTheSwiftKitWritesIt() throws Exception {
        // The Swift kit's Codable form of DeviceKeyPair: {keyId, privateKey, auth}, base64url.
        Map<String, String> keys = DocPage.load().values("aes128gcm keys");
        String stored = "{\"keyId\":\"phone-2026-11\",\"privateKey\":\"" + keys.get("d") + "\",\"auth\":\"" + keys.get("auth") + "\"}";
        assertEquals(keys.get("p256dh"), DeviceKeyPair.fromJson(stored).registration().p256dh());
    }

    @Test
    public void aStoredKeyThatIsNotAKeyIsAnInvalidKeyError() {
        expectInvalid(() -> DeviceKeyPair.fromStored("k", new byte[32], new byte[16]), "privateKey");
        expectInvalid(() -> DeviceKeyPair.fromStored("k", Base64Url.decode("Y5Amw0N7XSxmeJhOFTUJLeviUR-CW-wgPBdJCY8vT2E"), new byte[15]), "auth");
        expectInvalid(() -> AddressKeyPair.fromPem("a", "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----"), "privateKey");
        expectInvalid(() -> DeviceKeyPair.fromJson("{\"keyId\":\"k\"}"), null);
    }

    interface Reading {
        void read() throws HeraldClientException;
    }

    static void expectInvalid(Reading reading, String field) {
        try {
            reading.read();
            fail("read");
        } catch (HeraldClientException error) {
            assertEquals(HeraldClientException.Reason.INVALID_KEY, error.reason());
            if (field != null) assertEquals(field, error.field());
        }
    }
}
