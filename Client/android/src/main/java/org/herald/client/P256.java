package org.herald.client;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.interfaces.ECPublicKey;
import java.security.spec.ECGenParameterSpec;
import java.security.spec.ECParameterSpec;
import java.security.spec.ECPoint;
import java.security.spec.ECPublicKeySpec;

/**
 * The curve of device keys (secp256r1), and the one thing the JDK does not offer for it: the
 * public point of a stored private scalar. It is found with the JDK's own constant-time parts:
 * ECDH with the generator gives its x, the curve equation its two possible y, and an ECDSA
 * signature made with the scalar tells which of them is the key.
 */
final class P256 {
    static final ECParameterSpec PARAMETERS = parameters();
    private static final BigInteger P = new BigInteger("ffffffff00000001000000000000000000000000ffffffffffffffffffffffff", 16);

    private P256() {}

    /** The curve's parameters, taken from a key of the curve: the way that works on every Android provider. */
    private static ECParameterSpec parameters() {
        try {
            java.security.KeyPairGenerator generator = java.security.KeyPairGenerator.getInstance("EC");
            generator.initialize(new ECGenParameterSpec("secp256r1"));
            return ((ECPublicKey) generator.generateKeyPair().getPublic()).getParams();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("this JDK has no secp256r1", e);
        }
    }

    /** {@code 04 | X | Y}, each coordinate padded to 32 bytes. */
    static byte[] uncompressed(ECPublicKey key) {
        byte[] point = new byte[65];
        point[0] = 4;
        copyPadded(key.getW().getAffineX(), point, 1);
        copyPadded(key.getW().getAffineY(), point, 33);
        return point;
    }

    /** The scalar as 32 bytes, big-endian. */
    static byte[] scalar(BigInteger s) {
        byte[] bytes = new byte[32];
        copyPadded(s, bytes, 0);
        return bytes;
    }

    private static void copyPadded(BigInteger value, byte[] into, int offset) {
        byte[] bytes = value.toByteArray();
        int start = bytes.length > 32 ? bytes.length - 32 : 0;
        int length = bytes.length - start;
        System.arraycopy(bytes, start, into, offset + 32 - length, length);
    }

    /** The public key of {@code privateKey}. */
    static ECPublicKey publicKey(PrivateKey privateKey) throws GeneralSecurityException {
        KeyFactory factory = KeyFactory.getInstance("EC");
        PublicKey generator = factory.generatePublic(new ECPublicKeySpec(PARAMETERS.getGenerator(), PARAMETERS));
        javax.crypto.KeyAgreement agreement = javax.crypto.KeyAgreement.getInstance("ECDH");
        agreement.init(privateKey);
        agreement.doPhase(generator, true);
        BigInteger x = new BigInteger(1, agreement.generateSecret());
        BigInteger b = PARAMETERS.getCurve().getB();
        BigInteger rhs = x.pow(3).subtract(x.multiply(BigInteger.valueOf(3))).add(b).mod(P);
        // p ≡ 3 (mod 4): a square root is rhs^((p+1)/4).
        BigInteger y = rhs.modPow(P.add(BigInteger.ONE).shiftRight(2), P);
        if (!y.multiply(y).mod(P).equals(rhs)) throw new GeneralSecurityException("no point for the scalar");
        byte[] probe = "herald: which y".getBytes(StandardCharsets.US_ASCII);
        Signature signer = Signature.getInstance("SHA256withECDSA");
        signer.initSign(privateKey);
        signer.update(probe);
        byte[] signature = signer.sign();
        for (BigInteger candidate : new BigInteger[] {y, P.subtract(y)}) {
            ECPublicKey key = (ECPublicKey) factory.generatePublic(new ECPublicKeySpec(new ECPoint(x, candidate), PARAMETERS));
            Signature verifier = Signature.getInstance("SHA256withECDSA");
            verifier.initVerify(key);
            verifier.update(probe);
            if (verifier.verify(signature)) return key;
        }
        throw new GeneralSecurityException("neither point verifies the scalar's signature");
    }
}
