package org.herald.client;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.fail;

import java.security.spec.MGF1ParameterSpec;
import javax.crypto.BadPaddingException;
import javax.crypto.Cipher;
import org.junit.Test;

/**
 * RSA-OAEP-256 is SHA-256 with MGF1-SHA-256 (RFC 7518 §4.3). The JDK's and Android's
 * {@code OAEPWithSHA-256AndMGF1Padding} alone use MGF1 with SHA-1: the kit must name its
 * parameters, or no Herald payload opens.
 */
public class OaepParametersTest {
    @Test
    public void theKitsOaepParametersAreSha256WithMgf1Sha256() {
        assertEquals("SHA-256", JweDecryption.OAEP_PARAMETERS.getDigestAlgorithm());
        assertEquals("MGF1", JweDecryption.OAEP_PARAMETERS.getMGFAlgorithm());
        assertEquals("SHA-256", ((MGF1ParameterSpec) JweDecryption.OAEP_PARAMETERS.getMGFParameters()).getDigestAlgorithm());
    }

    @Test
    public void theProvidersDefaultMgf1CannotUnwrapAHeraldContentKey() throws Exception {
        DocPage page = DocPage.load();
        String[] parts = page.jweParts();
        Cipher defaults = Cipher.getInstance("RSA/ECB/OAEPWithSHA-256AndMGF1Padding");
        defaults.init(Cipher.DECRYPT_MODE, page.addressKey().privateKey());
        try {
            defaults.doFinal(Base64Url.decode(parts[1]));
            fail("the provider's default OAEP parameters unwrapped the key: MGF1 is no longer SHA-1 by default, revisit docs/client.md");
        } catch (BadPaddingException expected) {
            // MGF1 with SHA-1: the padding does not check out.
        }
    }

    @Test
    public void theKitsParametersUnwrapTheThirtyTwoByteContentKey() throws Exception {
        assertEquals(32, DocPage.load().jweContentKey().length);
    }
}
