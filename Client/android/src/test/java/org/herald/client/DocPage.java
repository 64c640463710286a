package org.herald.client;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/** The worked examples of docs/client.md, read from the page itself (as the Swift kit's ClientDocTests read them). */
final class DocPage {
    private final String text;

    private DocPage(String text) {
        this.text = text;
    }

    static DocPage load() throws IOException {
        String root = System.getProperty("herald.root", "../..");
        return new DocPage(Files.readString(Path.of(root, "docs", "client.md"), StandardCharsets.UTF_8));
    }

    /** The fenced block right after {@code <!-- example: name -->}. */
    String block(String name) {
        String marker = "<!-- example: " + name + " -->\n";
        int at = text.indexOf(marker);
        if (at < 0) throw new AssertionError("no example " + name + " in docs/client.md");
        String rest = text.substring(at + marker.length());
        if (!rest.startsWith("```")) throw new AssertionError("example " + name + " is not followed by a fenced block");
        int open = rest.indexOf('\n');
        int close = rest.indexOf("\n```", open);
        return rest.substring(open + 1, close);
    }

    /** The {@code name = value} lines of a block. */
    Map<String, String> values(String name) {
        Map<String, String> values = new HashMap<>();
        for (String line : block(name).split("\n")) {
            int equals = line.indexOf('=');
            if (equals < 0) continue;
            values.put(line.substring(0, equals).trim(), line.substring(equals + 1).trim());
        }
        return values;
    }

    /** A data map printed as JSON. */
    Map<String, String> dataMap(String name) {
        Map<String, String> map = HeraldData.fromPushKitData(block(name));
        if (map == null) throw new AssertionError("example " + name + " is not a JSON object of strings");
        return map;
    }

    /** The device key of the aes128gcm example. */
    DeviceKeyPair deviceKey() throws HeraldClientException {
        Map<String, String> keys = values("aes128gcm keys");
        return DeviceKeyPair.fromStored(keys.get("keyId"), Base64Url.decode(keys.get("d")), Base64Url.decode(keys.get("auth")));
    }

    /** The address key of the jwe example. */
    AddressKeyPair addressKey() throws HeraldClientException {
        return AddressKeyPair.fromPem("addr-key-1", block("jwe private key"));
    }

    /** The five base64url parts of the jwe example's payload. */
    String[] jweParts() {
        return dataMap("jwe data map").get("payload").split("\\.", -1);
    }

    /** The jwe example's content key, unwrapped with the kit's OAEP parameters. */
    byte[] jweContentKey() throws Exception {
        javax.crypto.Cipher rsa = javax.crypto.Cipher.getInstance(JweDecryption.RSA_TRANSFORMATION);
        rsa.init(javax.crypto.Cipher.DECRYPT_MODE, addressKey().privateKey(), JweDecryption.OAEP_PARAMETERS);
        return rsa.doFinal(Base64Url.decode(jweParts()[1]));
    }

    static String hex(byte[] bytes) {
        StringBuilder builder = new StringBuilder();
        for (byte b : bytes) builder.append(String.format("%02x", b & 0xFF));
        return builder.toString();
    }
}
