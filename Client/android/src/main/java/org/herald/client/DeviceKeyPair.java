package org.herald.client;

import java.math.BigInteger;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.SecureRandom;
import java.security.interfaces.ECPrivateKey;
import java.security.interfaces.ECPublicKey;
import java.security.spec.ECPrivateKeySpec;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A device's own key for {@code aes128gcm} pushes: a P-256 key pair and a 16-byte auth secret,
 * under the key id the app registers it with. Generate it once per installation, keep it
 * ({@link #toJson()}, the same stored form as the Swift kit's), and send {@link #registration()}
 * as the device's {@code key}.
 */
public final class DeviceKeyPair {
    private final String keyId;
    private final ECPrivateKey privateKey;
    private final byte[] publicKeyBytes;
    private final byte[] authSecret;

    private DeviceKeyPair(String keyId, ECPrivateKey privateKey, ECPublicKey publicKey, byte[] authSecret) {
        this.keyId = keyId;
        this.privateKey = privateKey;
        this.publicKeyBytes = P256.uncompressed(publicKey);
        this.authSecret = authSecret.clone();
    }

    /** A fresh key pair and auth secret from the system's random number generator. */
    public static DeviceKeyPair generate(String keyId) {
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
            generator.initialize(P256.PARAMETERS, new SecureRandom());
            KeyPair pair = generator.generateKeyPair();
            byte[] auth = new byte[16];
            new SecureRandom().nextBytes(auth);
            return new DeviceKeyPair(keyId, (ECPrivateKey) pair.getPrivate(), (ECPublicKey) pair.getPublic(), auth);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("this JDK cannot make P-256 keys", e);
        }
    }

    /**
     * Reads a stored key: the private scalar (32 bytes, or PKCS #8 DER) and the 16-byte auth
     * secret. Fails with {@code INVALID_KEY} when either is not one.
     */
    public static DeviceKeyPair fromStored(String keyId, byte[] privateKey, byte[] authSecret) throws HeraldClientException {
        if (authSecret.length != 16) {
            throw new HeraldClientException(HeraldClientException.Reason.INVALID_KEY, "auth",
                "the stored device key cannot be read: the auth secret must be 16 bytes, got " + authSecret.length);
        }
        try {
            KeyFactory factory = KeyFactory.getInstance("EC");
            ECPrivateKey key;
            if (privateKey.length == 32) {
                key = (ECPrivateKey) factory.generatePrivate(new ECPrivateKeySpec(new BigInteger(1, privateKey), P256.PARAMETERS));
            } else {
                key = (ECPrivateKey) factory.generatePrivate(new PKCS8EncodedKeySpec(privateKey));
                if (!key.getParams().getCurve().equals(P256.PARAMETERS.getCurve())) throw new GeneralSecurityException("not P-256");
            }
            BigInteger s = key.getS();
            if (s.signum() <= 0 || s.compareTo(P256.PARAMETERS.getOrder()) >= 0) throw new GeneralSecurityException("out of range");
            return new DeviceKeyPair(keyId, key, P256.publicKey(key), authSecret);
        } catch (GeneralSecurityException | ClassCastException | IllegalArgumentException e) {
            throw new HeraldClientException(HeraldClientException.Reason.INVALID_KEY, "privateKey",
                "the stored device key cannot be read: " + privateKey.length + " bytes that are not a P-256 private key (32 raw bytes or PKCS #8 DER)");
        }
    }

    /** Reads the stored form {@link #toJson()} wrote: {@code {"keyId", "privateKey", "auth"}}, base64url. */
    public static DeviceKeyPair fromJson(String json) throws HeraldClientException {
        Map<String, Object> object;
        try {
            object = Json.parseObject(json);
        } catch (Json.SyntaxException e) {
            throw new HeraldClientException(HeraldClientException.Reason.INVALID_KEY, null, "the stored device key is not a JSON object");
        }
        Object keyId = object.get("keyId");
        Object scalar = object.get("privateKey");
        Object auth = object.get("auth");
        byte[] scalarBytes = scalar instanceof String ? Base64Url.decode((String) scalar) : null;
        byte[] authBytes = auth instanceof String ? Base64Url.decode((String) auth) : null;
        if (!(keyId instanceof String) || scalarBytes == null || authBytes == null) {
            throw new HeraldClientException(HeraldClientException.Reason.INVALID_KEY, null,
                "the stored device key needs keyId, and privateKey and auth in base64url");
        }
        return fromStored((String) keyId, scalarBytes, authBytes);
    }

    /** The stored form: {@code {"auth", "keyId", "privateKey"}}, the binary values base64url. Keep it secret. */
    public String toJson() {
        Map<String, Object> object = new LinkedHashMap<>();
        object.put("keyId", keyId);
        object.put("privateKey", Base64Url.encode(P256.scalar(privateKey.getS())));
        object.put("auth", Base64Url.encode(authSecret));
        return Json.write(object);
    }

    /** The id the app registered the key under; pushes name it in {@code kid}. */
    public String keyId() {
        return keyId;
    }

    /**
     * The device registration's {@code key} member, exactly as {@code PUT /v1/apps/{app}/devices/{id}}
     * takes it: {@code p256dh} the 65-byte uncompressed public point and {@code auth} the secret,
     * both base64url without padding.
     */
    public Registration registration() {
        return new Registration(keyId, Base64Url.encode(publicKeyBytes), Base64Url.encode(authSecret));
    }

    /** The {@code key} object of a device registration. */
    public record Registration(String keyId, String p256dh, String auth) {
        /** {@code {"auth", "keyId", "p256dh"}}, to put as the registration body's {@code key}. */
        public String toJson() {
            Map<String, Object> object = new LinkedHashMap<>();
            object.put("keyId", keyId);
            object.put("p256dh", p256dh);
            object.put("auth", auth);
            return Json.write(object);
        }
    }

    ECPrivateKey privateKey() {
        return privateKey;
    }

    byte[] publicKeyBytes() {
        return publicKeyBytes.clone();
    }

    byte[] authSecret() {
        return authSecret.clone();
    }

    /** Opens an {@code aes128gcm} body encrypted to this key. */
    byte[] decrypt(byte[] body) throws HeraldClientException {
        return WebPushDecryption.decrypt(body, this);
    }
}
