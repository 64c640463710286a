package org.herald.client;

/**
 * Why a push could not be opened, a stored key not read, or a call to Herald failed
 * ({@link HeraldRegistrar}). Every failure of the kit is one of
 * these, never another exception: {@link #reason()} is for code, {@link #getMessage()} for a log
 * line (it never contains key material or the payload's contents).
 */
public final class HeraldClientException extends Exception {
    private static final long serialVersionUID = 1L;

    /** The kinds of failure, the same as the Swift kit's {@code HeraldClientError.Reason}. */
    public enum Reason {
        /** The data map is not Herald's (no {@code herald} key): the push came from another source. */
        NOT_HERALD("notHerald"),
        /** A Herald format version this kit does not read (it reads {@code 1}). */
        UNSUPPORTED_VERSION("unsupportedVersion"),
        /** An {@code enc} other than {@code aes128gcm} and {@code jwe}. */
        UNSUPPORTED_SCHEME("unsupportedScheme"),
        /** No key of the keyring has the push's {@code kid} (for its scheme). */
        UNKNOWN_KEY("unknownKey"),
        /** The payload does not authenticate: tampered with, or encrypted to another key. */
        DECRYPTION_FAILED("decryptionFailed"),
        /** Bad base64url, not a JSON object of strings, a JWE header contradicting the map. */
        MALFORMED_PAYLOAD("malformedPayload"),
        /** A field the format or the event's kind requires is absent. */
        MISSING_FIELD("missingField"),
        /** A stored key that cannot be read, or a key size Herald does not take. */
        INVALID_KEY("invalidKey"),
        /** Herald refused the client token, and a fresh one from the token provider too (401). */
        UNAUTHORIZED("unauthorized"),
        /** Herald refused the call ({@link #status()}; the message is its problem's detail), or did not answer. */
        REQUEST_FAILED("requestFailed");

        private final String code;

        Reason(String code) {
            this.code = code;
        }

        /** The reason's name in {@code docs/client.md} and the Swift kit ({@code decryptionFailed}). */
        public String code() {
            return code;
        }
    }

    private final Reason reason;
    private final String field;
    private final int status;

    public HeraldClientException(Reason reason, String field, String message) {
        this(reason, field, message, 0);
    }

    /** A failed call to Herald: {@code status} is the HTTP status it answered (0 when none came). */
    public HeraldClientException(Reason reason, String field, String message, int status) {
        super(field == null ? reason.code() + ": " + message : reason.code() + " (" + field + "): " + message);
        this.reason = reason;
        this.field = field;
        this.status = status;
    }

    /** For a call to Herald: the HTTP status it answered; 0 when none came or for another failure. */
    public int status() {
        return status;
    }

    public Reason reason() {
        return reason;
    }

    /** The data-map field the problem is in, when there is one ({@code payload}, {@code kid}); else null. */
    public String field() {
        return field;
    }
}
