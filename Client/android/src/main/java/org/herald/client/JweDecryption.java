package org.herald.client;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.spec.MGF1ParameterSpec;
import java.util.Map;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.OAEPParameterSpec;
import javax.crypto.spec.PSource;
import javax.crypto.spec.SecretKeySpec;

/**
 * Opens a compact JWE (RFC 7516) of {@code RSA-OAEP-256} and {@code A256GCM}:
 * {@code header.encrypted_key.iv.ciphertext.tag}, each part base64url.
 */
final class JweDecryption {
    static final String SCHEME = "jwe";
    static final String ALGORITHM = "RSA-OAEP-256";
    static final String ENCRYPTION = "A256GCM";

    /**
     * RSA-OAEP-256 as RFC 7518 defines it: SHA-256 and MGF1 with SHA-256, empty label. Given
     * explicitly: {@code "RSA/ECB/OAEPWithSHA-256AndMGF1Padding"} alone means MGF1 with SHA-1 on
     * the JDK's and Android's providers, and then no Herald payload decrypts.
     */
    static final OAEPParameterSpec OAEP_PARAMETERS =
        new OAEPParameterSpec("SHA-256", "MGF1", MGF1ParameterSpec.SHA256, PSource.PSpecified.DEFAULT);
    static final String RSA_TRANSFORMATION = "RSA/ECB/OAEPPadding";

    /** The protected header's {@code kid} (null when absent) and the plaintext. */
    record Opened(String keyId, byte[] plaintext) {}

    private JweDecryption() {}

    static Opened decrypt(String compact, PrivateKey key) throws HeraldClientException {
        String[] parts = compact.split("\\.", -1);
        if (parts.length != 5) throw malformed("a compact JWE has 5 parts, found " + parts.length);
        byte[] headerBytes = Base64Url.decode(parts[0]);
        Map<String, Object> header = null;
        if (headerBytes != null) {
            try {
                header = Json.parseObject(strictUtf8(headerBytes));
            } catch (Json.SyntaxException | CharacterCodingException e) {
                header = null;
            }
        }
        if (header == null || !(header.get("alg") instanceof String) || !(header.get("enc") instanceof String)
            || !optionalString(header, "kid") || !optionalString(header, "cty")) {
            throw malformed("the protected header is not base64url JSON with alg and enc");
        }
        if (!ALGORITHM.equals(header.get("alg")) || !ENCRYPTION.equals(header.get("enc"))) {
            throw malformed("alg " + header.get("alg") + " / enc " + header.get("enc") + "; only " + ALGORITHM + " / " + ENCRYPTION + " is supported");
        }
        byte[] wrapped = Base64Url.decode(parts[1]);
        byte[] iv = Base64Url.decode(parts[2]);
        byte[] ciphertext = Base64Url.decode(parts[3]);
        byte[] tag = Base64Url.decode(parts[4]);
        if (wrapped == null || iv == null || ciphertext == null || tag == null || iv.length != 12 || tag.length != 16) {
            throw malformed("the key, iv (12 bytes), ciphertext or tag (16 bytes) part is invalid");
        }
        try {
            Cipher rsa = Cipher.getInstance(RSA_TRANSFORMATION);
            rsa.init(Cipher.DECRYPT_MODE, key, OAEP_PARAMETERS);
            byte[] contentKey = rsa.doFinal(wrapped);
            if (contentKey.length != 32) throw new GeneralSecurityException("the content key is not 256 bits");
            Cipher aes = Cipher.getInstance("AES/GCM/NoPadding");
            aes.init(Cipher.DECRYPT_MODE, new SecretKeySpec(contentKey, "AES"), new GCMParameterSpec(128, iv));
            aes.updateAAD(parts[0].getBytes(StandardCharsets.US_ASCII));
            byte[] sealed = new byte[ciphertext.length + tag.length];
            System.arraycopy(ciphertext, 0, sealed, 0, ciphertext.length);
            System.arraycopy(tag, 0, sealed, ciphertext.length, tag.length);
            byte[] plaintext = aes.doFinal(sealed);
            return new Opened((String) header.get("kid"), plaintext);
        } catch (GeneralSecurityException | IllegalArgumentException e) {
            throw new HeraldClientException(HeraldClientException.Reason.DECRYPTION_FAILED, "payload",
                "the payload does not decrypt with the key its kid names: tampered with, or encrypted to another key");
        }
    }

    private static boolean optionalString(Map<String, Object> header, String key) {
        return !header.containsKey(key) || header.get(key) == null || header.get(key) instanceof String;
    }

    /** UTF-8 that refuses invalid bytes instead of replacing them. */
    static String strictUtf8(byte[] bytes) throws CharacterCodingException {
        return StandardCharsets.UTF_8.newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT)
            .decode(ByteBuffer.wrap(bytes))
            .toString();
    }

    private static HeraldClientException malformed(String message) {
        return new HeraldClientException(HeraldClientException.Reason.MALFORMED_PAYLOAD, "payload", message);
    }
}
