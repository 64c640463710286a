package org.herald.client;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A device's notification configuration, the Sudo shape: an ordered list of entries, each
 * enabling or disabling one service, for everything or for the events whose context field
 * matches a value (one Sudo, one email address). The most specific entry that applies wins (an
 * address's over its Sudo's over the service's), the later of two equally specific ones; a
 * device without entries gets everything. It is the document Preferences filters with: read it ({@code GET
 * …/devices/{id}/configuration}), change it with the Sudo SDK's helpers below, and write it whole
 * ({@code PUT}, with the read's {@code ETag} as {@code If-Match}; a 412 means another client
 * wrote in between, so read again and redo the change). Immutable: each change returns a new
 * configuration, as Sudo's Android SDK does.
 */
public final class NotificationConfiguration {
    /** The service of Sudo email's pushes. */
    public static final String EMAIL_SERVICE = "sudo-email";

    private final List<Entry> entries;

    public NotificationConfiguration(List<Entry> entries) {
        this.entries = List.copyOf(entries);
    }

    /** An empty configuration: everything enabled. */
    public NotificationConfiguration() {
        this(List.of());
    }

    public List<Entry> entries() {
        return entries;
    }

    /** One entry: {@code service} on or off, for everything ({@code rule} null) or the events matching {@code rule}. */
    public record Entry(String service, boolean enabled, Rule rule) {}

    /** {@code context[field] == value}. */
    public record Rule(Field field, String value) {}

    /** The context fields a rule can match. */
    public enum Field {
        SUDO_ID("sudoId"), EMAIL_ADDRESS_ID("emailAddressId");

        private final String code;

        Field(String code) {
            this.code = code;
        }

        /** The field's name in the document and in an event's context. */
        public String code() {
            return code;
        }

        /** How specific a rule on the field is: an address belongs to one Sudo, so its rule outranks the Sudo's (a rule-less entry is 0). */
        public int specificity() {
            return this == EMAIL_ADDRESS_ID ? 2 : 1;
        }

        static Field of(String code) {
            for (Field field : values()) {
                if (field.code.equals(code)) return field;
            }
            return null;
        }
    }

    /**
     * Whether an event of {@code service} with {@code context} is enabled: the most specific entry
     * that applies decides (an address's over a Sudo's over the service's rule-less one, whatever
     * the order they were set in), the last of those if several; none applies: enabled.
     */
    public boolean isEnabled(String service, Map<String, String> context) {
        return isEnabled(service, context, true);
    }

    /**
     * As {@link #isEnabled(String, Map)}, with {@code byDefault} when no entry applies: false for
     * a service the app makes opt-in, as Sudo's email is ("you must enable them").
     */
    public boolean isEnabled(String service, Map<String, String> context, boolean byDefault) {
        int specificity = -1;
        boolean enabled = byDefault;
        for (Entry entry : entries) {
            if (!entry.service().equals(service)) continue;
            if (entry.rule() != null && !entry.rule().value().equals(context.get(entry.rule().field().code()))) continue;
            int rank = entry.rule() == null ? 0 : entry.rule().field().specificity();
            if (rank >= specificity) {
                specificity = rank;
                enabled = entry.enabled();
            }
        }
        return enabled;
    }

    /**
     * Adds an entry enabling {@code service} if it has no rule-less entry yet, before all others
     * so it never overrides a Sudo or address rule. Everything else is kept.
     */
    public NotificationConfiguration initialize(String service) {
        for (Entry entry : entries) {
            if (entry.service().equals(service) && entry.rule() == null) return this;
        }
        List<Entry> changed = new ArrayList<>();
        changed.add(new Entry(service, true, null));
        changed.addAll(entries);
        return new NotificationConfiguration(changed);
    }

    /** Enables or disables {@code service} for the events matching {@code rule}, replacing an earlier entry for the same rule. */
    public NotificationConfiguration set(String service, Rule rule, boolean enabled) {
        List<Entry> changed = new ArrayList<>();
        for (Entry entry : entries) {
            if (!(entry.service().equals(service) && rule.equals(entry.rule()))) changed.add(entry);
        }
        changed.add(new Entry(service, enabled, rule));
        return new NotificationConfiguration(changed);
    }

    // Sudo email: the SDK's helpers, touching only email's entries.

    /** Sudo's {@code initEmailNotifications()}: email on unless a Sudo or an address says otherwise; until then a device gets no email pushes. */
    public NotificationConfiguration initEmailNotifications() {
        return initialize(EMAIL_SERVICE);
    }

    /** Sudo's {@code isEmailNotificationForSudoIdEnabled(sudoId)}: off until enabled (email is opt-in). */
    public boolean isEmailNotificationForSudoIdEnabled(String sudoId) {
        return isEnabled(EMAIL_SERVICE, Map.of(Field.SUDO_ID.code(), sudoId), false);
    }

    /** Sudo's {@code isEmailNotificationForAddressIdEnabled(emailAddressId)}: by its own entry, or email's rule-less one. */
    public boolean isEmailNotificationForAddressIdEnabled(String emailAddressId) {
        return isEnabled(EMAIL_SERVICE, Map.of(Field.EMAIL_ADDRESS_ID.code(), emailAddressId), false);
    }

    /** Sudo's {@code setEmailNotificationsForSudoId(sudoId, enabled)}. */
    public NotificationConfiguration setEmailNotificationsForSudoId(String sudoId, boolean enabled) {
        return set(EMAIL_SERVICE, new Rule(Field.SUDO_ID, sudoId), enabled);
    }

    /** Sudo's {@code setEmailNotificationsForAddressId(emailAddressId, enabled)}. */
    public NotificationConfiguration setEmailNotificationsForAddressId(String emailAddressId, boolean enabled) {
        return set(EMAIL_SERVICE, new Rule(Field.EMAIL_ADDRESS_ID, emailAddressId), enabled);
    }

    // The gateway's side.

    /** The configuration of a {@code GET} or {@code PUT …/configuration} answer ({@code {"configuration": …}}). */
    public static NotificationConfiguration fromReply(String json) throws HeraldClientException {
        try {
            Object configuration = Json.parseObject(json).get("configuration");
            if (!(configuration instanceof Map)) throw new Json.SyntaxException("no configuration object");
            Object list = ((Map<?, ?>) configuration).get("entries");
            if (!(list instanceof List)) throw new Json.SyntaxException("no entries array");
            List<Entry> entries = new ArrayList<>();
            for (Object item : (List<?>) list) {
                if (!(item instanceof Map)) throw new Json.SyntaxException("an entry that is not an object");
                Map<?, ?> object = (Map<?, ?>) item;
                if (!(object.get("service") instanceof String) || !(object.get("enabled") instanceof Boolean)) {
                    throw new Json.SyntaxException("an entry without service and enabled");
                }
                Rule rule = null;
                Object ruleObject = object.get("rule");
                if (ruleObject != null) {
                    if (!(ruleObject instanceof Map)) throw new Json.SyntaxException("a rule that is not an object");
                    Map<?, ?> fields = (Map<?, ?>) ruleObject;
                    Field field = fields.get("field") instanceof String ? Field.of((String) fields.get("field")) : null;
                    if (field == null || !(fields.get("value") instanceof String)) throw new Json.SyntaxException("a rule without a known field and a value");
                    rule = new Rule(field, (String) fields.get("value"));
                }
                entries.add(new Entry((String) object.get("service"), (Boolean) object.get("enabled"), rule));
            }
            return new NotificationConfiguration(entries);
        } catch (Json.SyntaxException e) {
            throw new HeraldClientException(HeraldClientException.Reason.MALFORMED_PAYLOAD, "configuration",
                "not a device configuration answer: " + e.getMessage());
        }
    }

    /** The body of a {@code PUT …/configuration}: {@code {"entries": […]}}, keys sorted. */
    public String requestBody() {
        List<Object> list = new ArrayList<>();
        for (Entry entry : entries) {
            Map<String, Object> object = new LinkedHashMap<>();
            object.put("service", entry.service());
            object.put("enabled", entry.enabled());
            if (entry.rule() != null) {
                Map<String, Object> rule = new LinkedHashMap<>();
                rule.put("field", entry.rule().field().code());
                rule.put("value", entry.rule().value());
                object.put("rule", rule);
            }
            list.add(object);
        }
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("entries", list);
        return Json.write(body);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof NotificationConfiguration && ((NotificationConfiguration) other).entries.equals(entries);
    }

    @Override
    public int hashCode() {
        return entries.hashCode();
    }

    @Override
    public String toString() {
        return requestBody();
    }
}
