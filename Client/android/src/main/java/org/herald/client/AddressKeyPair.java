package org.herald.client;

import java.io.ByteArrayOutputStream;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.SecureRandom;
import java.security.interfaces.RSAPrivateCrtKey;
import java.security.spec.PKCS8EncodedKeySpec;
import java.security.spec.RSAPublicKeySpec;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * An email address's own key for {@code jwe} pushes: an RSA key pair (2048 to 4096 bits) under
 * the key id the app registers it with. Generate it once per address, keep it ({@link
 * #privateKeyPem()}, outside the Android Keystore before API 35: see docs/client.md), and send
 * {@link #registration()} to the address-key endpoint.
 */
public final class AddressKeyPair {
    /** The RSA sizes Herald takes for an address key. */
    public static final int MIN_BITS = 2048;
    public static final int MAX_BITS = 4096;

    private final String keyId;
    private final RSAPrivateCrtKey privateKey;

    private AddressKeyPair(String keyId, RSAPrivateCrtKey privateKey) {
        this.keyId = keyId;
        this.privateKey = privateKey;
    }

    /** A fresh RSA key of 2048 bits. */
    public static AddressKeyPair generate(String keyId) throws HeraldClientException {
        return generate(keyId, 2048);
    }

    /** A fresh RSA key of {@code bits} (a multiple of 8 from 2048 to 4096; larger costs more to make and use). */
    public static AddressKeyPair generate(String keyId, int bits) throws HeraldClientException {
        if (bits < MIN_BITS || bits > MAX_BITS || bits % 8 != 0) {
            throw new HeraldClientException(HeraldClientException.Reason.INVALID_KEY, "bits",
                "a " + bits + "-bit RSA key; Herald takes 2048 to 4096 bits");
        }
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
            generator.initialize(bits, new SecureRandom());
            KeyPair pair = generator.generateKeyPair();
            return new AddressKeyPair(keyId, (RSAPrivateCrtKey) pair.getPrivate());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("this JDK cannot make RSA keys", e);
        }
    }

    /** Reads a stored key from its PEM ({@code BEGIN PRIVATE KEY} or {@code BEGIN RSA PRIVATE KEY}). */
    public static AddressKeyPair fromPem(String keyId, String privateKeyPem) throws HeraldClientException {
        RSAPrivateCrtKey key;
        try {
            byte[] der;
            if (privateKeyPem.contains("-----BEGIN RSA PRIVATE KEY-----")) {
                der = pkcs8OfPkcs1(pemBody(privateKeyPem, "RSA PRIVATE KEY"));
            } else {
                der = pemBody(privateKeyPem, "PRIVATE KEY");
            }
            key = (RSAPrivateCrtKey) KeyFactory.getInstance("RSA").generatePrivate(new PKCS8EncodedKeySpec(der));
        } catch (GeneralSecurityException | ClassCastException | IllegalArgumentException e) {
            throw new HeraldClientException(HeraldClientException.Reason.INVALID_KEY, "privateKey",
                "the stored address key cannot be read: not the PEM of an RSA private key");
        }
        int bits = key.getModulus().bitLength();
        if (bits < MIN_BITS || bits > MAX_BITS) {
            throw new HeraldClientException(HeraldClientException.Reason.INVALID_KEY, "privateKey",
                "the stored address key cannot be read: a " + bits + "-bit RSA key; Herald takes 2048 to 4096 bits");
        }
        return new AddressKeyPair(keyId, key);
    }

    /** The id the app registered the key under; pushes name it in {@code kid} and in the JWE header. */
    public String keyId() {
        return keyId;
    }

    /** The modulus's size in bits. */
    public int bits() {
        return privateKey.getModulus().bitLength();
    }

    /** The private key as PKCS #8 PEM ({@code BEGIN PRIVATE KEY}), to store. Keep it secret. */
    public String privateKeyPem() {
        return pem("PRIVATE KEY", privateKey.getEncoded());
    }

    /** The body of {@code PUT /v1/apps/{app}/email/addresses/{id}/key}: the key id and the public key as SPKI PEM. */
    public Registration registration() {
        try {
            java.security.PublicKey publicKey = KeyFactory.getInstance("RSA")
                .generatePublic(new RSAPublicKeySpec(privateKey.getModulus(), privateKey.getPublicExponent()));
            return new Registration(keyId, pem("PUBLIC KEY", publicKey.getEncoded()));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("this JDK cannot encode RSA public keys", e);
        }
    }

    /** The address-key registration's body ({@code owner} is the caller's to add). */
    public record Registration(String keyId, String publicKey) {
        /** {@code {"keyId", "publicKey"}}. */
        public String toJson() {
            Map<String, Object> object = new LinkedHashMap<>();
            object.put("keyId", keyId);
            object.put("publicKey", publicKey);
            return Json.write(object);
        }
    }

    RSAPrivateCrtKey privateKey() {
        return privateKey;
    }

    /** Opens a compact JWE encrypted to this key. */
    JweDecryption.Opened decrypt(String compact) throws HeraldClientException {
        return JweDecryption.decrypt(compact, privateKey);
    }

    private static String pem(String label, byte[] der) {
        String body = Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der);
        return "-----BEGIN " + label + "-----\n" + body + "\n-----END " + label + "-----";
    }

    private static byte[] pemBody(String pem, String label) throws GeneralSecurityException {
        String begin = "-----BEGIN " + label + "-----";
        String end = "-----END " + label + "-----";
        int start = pem.indexOf(begin);
        int stop = pem.indexOf(end);
        if (start < 0 || stop < start) throw new GeneralSecurityException("no " + label + " PEM");
        return Base64.getMimeDecoder().decode(pem.substring(start + begin.length(), stop).trim());
    }

    /** A PKCS #1 RSAPrivateKey wrapped as PKCS #8: {@code SEQUENCE { 0, rsaEncryption, OCTET STRING }}. */
    private static byte[] pkcs8OfPkcs1(byte[] pkcs1) {
        byte[] version = {0x02, 0x01, 0x00};
        byte[] algorithm = {0x30, 0x0d, 0x06, 0x09, 0x2a, (byte) 0x86, 0x48, (byte) 0x86, (byte) 0xf7, 0x0d, 0x01, 0x01, 0x01, 0x05, 0x00};
        byte[] octets = der(0x04, pkcs1);
        ByteArrayOutputStream content = new ByteArrayOutputStream();
        content.write(version, 0, version.length);
        content.write(algorithm, 0, algorithm.length);
        content.write(octets, 0, octets.length);
        return der(0x30, content.toByteArray());
    }

    private static byte[] der(int tag, byte[] content) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(tag);
        int length = content.length;
        if (length < 0x80) {
            out.write(length);
        } else {
            int bytes = length > 0xFFFF ? 3 : length > 0xFF ? 2 : 1;
            out.write(0x80 | bytes);
            for (int i = bytes - 1; i >= 0; i--) out.write((length >>> (8 * i)) & 0xFF);
        }
        out.write(content, 0, content.length);
        return out.toByteArray();
    }
}
