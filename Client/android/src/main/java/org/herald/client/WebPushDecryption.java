package org.herald.client;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PublicKey;
import java.security.spec.ECPoint;
import java.security.spec.ECPublicKeySpec;
import java.util.Arrays;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.KeyAgreement;
import javax.crypto.Mac;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * Opens an {@code aes128gcm} body (RFC 8188 with RFC 8291's keys) with a device's P-256 key and
 * auth secret: {@code salt(16) | rs(4) | idlen(1) | keyid(65) | records}, each record AES-128-GCM.
 */
final class WebPushDecryption {
    static final String SCHEME = "aes128gcm";
    private static final int TAG_SIZE = 16;

    private WebPushDecryption() {}

    static byte[] decrypt(byte[] body, DeviceKeyPair key) throws HeraldClientException {
        if (body.length < 21) throw malformed(body.length + " bytes are shorter than an aes128gcm header");
        byte[] salt = Arrays.copyOfRange(body, 0, 16);
        long recordSize = ((body[16] & 0xFFL) << 24) | ((body[17] & 0xFFL) << 16) | ((body[18] & 0xFFL) << 8) | (body[19] & 0xFFL);
        int idLength = body[20] & 0xFF;
        if (recordSize <= 17) throw malformed("record size " + recordSize + " is below the minimum of 18");
        if (idLength != 65 || body.length < 21 + idLength) {
            throw malformed("the key id must be the sender's 65-byte public key, found " + idLength + " bytes");
        }
        byte[] senderPublic = Arrays.copyOfRange(body, 21, 21 + idLength);
        byte[] shared = agree(key, senderPublic);
        byte[] prkKey = hmac(key.authSecret(), shared);
        byte[] keyInfo = concat("WebPush: info".getBytes(StandardCharsets.US_ASCII), new byte[] {0}, key.publicKeyBytes(), senderPublic);
        byte[] ikm = hmac(prkKey, concat(keyInfo, new byte[] {1}));
        byte[] prk = hmac(salt, ikm);
        byte[] cek = Arrays.copyOf(hmac(prk, concat("Content-Encoding: aes128gcm".getBytes(StandardCharsets.US_ASCII), new byte[] {0, 1})), 16);
        byte[] baseNonce = Arrays.copyOf(hmac(prk, concat("Content-Encoding: nonce".getBytes(StandardCharsets.US_ASCII), new byte[] {0, 1})), 12);

        int contentStart = 21 + idLength;
        if (contentStart >= body.length) throw malformed("no records");
        java.io.ByteArrayOutputStream plaintext = new java.io.ByteArrayOutputStream();
        int offset = contentStart;
        long sequence = 0;
        while (offset < body.length) {
            int end = (int) Math.min(offset + recordSize, body.length);
            boolean isLast = end == body.length;
            if (end - offset <= TAG_SIZE) throw malformed("record " + sequence + " is too short");
            byte[] nonce = baseNonce.clone();
            for (int i = 0; i < 8; i++) nonce[nonce.length - 1 - i] ^= (byte) (sequence >>> (8 * i));
            byte[] opened;
            try {
                Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
                cipher.init(Cipher.DECRYPT_MODE, new SecretKeySpec(cek, "AES"), new GCMParameterSpec(128, nonce));
                opened = cipher.doFinal(body, offset, end - offset);
            } catch (AEADBadTagException e) {
                throw new HeraldClientException(HeraldClientException.Reason.DECRYPTION_FAILED, "payload",
                    "the payload does not decrypt with the key its kid names: tampered with, or encrypted to another key");
            } catch (GeneralSecurityException e) {
                throw malformed("AES-GCM is not available: " + e.getClass().getSimpleName());
            }
            int delimiter = opened.length - 1;
            while (delimiter >= 0 && opened[delimiter] == 0) delimiter--;
            if (delimiter < 0) throw malformed("record " + sequence + " has no padding delimiter");
            int expected = isLast ? 2 : 1;
            if (opened[delimiter] != expected) {
                throw malformed("record " + sequence + " ends with delimiter " + (opened[delimiter] & 0xFF) + ", expected " + expected);
            }
            plaintext.write(opened, 0, delimiter);
            offset = end;
            sequence++;
        }
        return plaintext.toByteArray();
    }

    /** ECDH of the device's private key with the sender's point (the 32-byte x coordinate). */
    private static byte[] agree(DeviceKeyPair key, byte[] senderPublic) throws HeraldClientException {
        PublicKey sender;
        try {
            sender = publicKey(senderPublic);
        } catch (GeneralSecurityException | IllegalArgumentException e) {
            throw malformed("the key id is not a P-256 public key");
        }
        try {
            KeyAgreement agreement = KeyAgreement.getInstance("ECDH");
            agreement.init(key.privateKey());
            agreement.doPhase(sender, true);
            return agreement.generateSecret();
        } catch (GeneralSecurityException | IllegalStateException e) {
            // The JDK refuses a point that is not on the curve here.
            throw malformed("the key id is not a P-256 public key");
        }
    }

    /** The P-256 public key of an uncompressed point ({@code 04 | X | Y}). */
    static PublicKey publicKey(byte[] point) throws GeneralSecurityException {
        if (point.length != 65 || point[0] != 4) throw new java.security.spec.InvalidKeySpecException("not an uncompressed P-256 point");
        BigInteger x = new BigInteger(1, Arrays.copyOfRange(point, 1, 33));
        BigInteger y = new BigInteger(1, Arrays.copyOfRange(point, 33, 65));
        return KeyFactory.getInstance("EC").generatePublic(new ECPublicKeySpec(new ECPoint(x, y), P256.PARAMETERS));
    }

    static byte[] hmac(byte[] key, byte[] message) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            return mac.doFinal(message);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HMAC-SHA-256 is not available", e);
        }
    }

    private static byte[] concat(byte[]... parts) {
        int length = 0;
        for (byte[] part : parts) length += part.length;
        byte[] result = new byte[length];
        int offset = 0;
        for (byte[] part : parts) {
            System.arraycopy(part, 0, result, offset, part.length);
            offset += part.length;
        }
        return result;
    }

    private static HeraldClientException malformed(String message) {
        return new HeraldClientException(HeraldClientException.Reason.MALFORMED_PAYLOAD, "payload", message);
    }
}
