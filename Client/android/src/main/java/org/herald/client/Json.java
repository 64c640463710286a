package org.herald.client;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The little JSON the kit reads and writes (RFC 8259): objects become {@code Map<String, Object>},
 * arrays {@code List<Object>}, numbers {@code Double}, and {@code true}, {@code false}, {@code null}
 * themselves. Its own, so that the kit needs nothing beyond the JDK and behaves the same on the
 * JVM and on Android (whose {@code org.json} differs from the one on Maven Central).
 */
final class Json {
    /** Why a text is not JSON; the kit turns it into a {@link HeraldClientException}. */
    static final class SyntaxException extends Exception {
        private static final long serialVersionUID = 1L;

        SyntaxException(String message) {
            super(message);
        }
    }

    private final String text;
    private int position;

    private Json(String text) {
        this.text = text;
    }

    /** The value of {@code text}, which must be one JSON value and nothing after it. */
    static Object parse(String text) throws SyntaxException {
        Json parser = new Json(text);
        parser.skipWhitespace();
        Object value = parser.value(0);
        parser.skipWhitespace();
        if (parser.position != text.length()) throw parser.error("text after the JSON value");
        return value;
    }

    /** The object of {@code text}, or a {@link SyntaxException} when it is another value. */
    @SuppressWarnings("unchecked")
    static Map<String, Object> parseObject(String text) throws SyntaxException {
        Object value = parse(text);
        if (!(value instanceof Map)) throw new SyntaxException("not a JSON object");
        return (Map<String, Object>) value;
    }

    private Object value(int depth) throws SyntaxException {
        if (depth > 64) throw error("nested more than 64 deep");
        if (position >= text.length()) throw error("a value was expected");
        char c = text.charAt(position);
        switch (c) {
            case '{': return object(depth);
            case '[': return array(depth);
            case '"': return string();
            case 't': return literal("true", Boolean.TRUE);
            case 'f': return literal("false", Boolean.FALSE);
            case 'n': return literal("null", null);
            default:
                if (c == '-' || (c >= '0' && c <= '9')) return number();
                throw error("unexpected character");
        }
    }

    private Map<String, Object> object(int depth) throws SyntaxException {
        Map<String, Object> map = new LinkedHashMap<>();
        position++;
        skipWhitespace();
        if (peek() == '}') {
            position++;
            return map;
        }
        while (true) {
            skipWhitespace();
            if (peek() != '"') throw error("an object key was expected");
            String key = string();
            skipWhitespace();
            expect(':');
            skipWhitespace();
            map.put(key, value(depth + 1));
            skipWhitespace();
            char c = next();
            if (c == '}') return map;
            if (c != ',') throw error("',' or '}' was expected");
        }
    }

    private List<Object> array(int depth) throws SyntaxException {
        List<Object> list = new ArrayList<>();
        position++;
        skipWhitespace();
        if (peek() == ']') {
            position++;
            return list;
        }
        while (true) {
            skipWhitespace();
            list.add(value(depth + 1));
            skipWhitespace();
            char c = next();
            if (c == ']') return list;
            if (c != ',') throw error("',' or ']' was expected");
        }
    }

    private String string() throws SyntaxException {
        position++;
        StringBuilder builder = new StringBuilder();
        while (true) {
            if (position >= text.length()) throw error("an unterminated string");
            char c = text.charAt(position++);
            if (c == '"') return builder.toString();
            if (c < 0x20) throw error("a control character in a string");
            if (c != '\\') {
                builder.append(c);
                continue;
            }
            char escape = next();
            switch (escape) {
                case '"': builder.append('"'); break;
                case '\\': builder.append('\\'); break;
                case '/': builder.append('/'); break;
                case 'b': builder.append('\b'); break;
                case 'f': builder.append('\f'); break;
                case 'n': builder.append('\n'); break;
                case 'r': builder.append('\r'); break;
                case 't': builder.append('\t'); break;
                case 'u':
                    if (position + 4 > text.length()) throw error("a short \\u escape");
                    try {
                        builder.append((char) Integer.parseInt(text.substring(position, position + 4), 16));
                    } catch (NumberFormatException e) {
                        throw error("a \\u escape that is not hexadecimal");
                    }
                    position += 4;
                    break;
                default: throw error("an unknown escape");
            }
        }
    }

    private Double number() throws SyntaxException {
        int start = position;
        if (peek() == '-') position++;
        if (peek() == '0') {
            position++;
        } else if (!digits()) {
            throw error("a number without digits");
        }
        if (peek() == '.') {
            position++;
            if (!digits()) throw error("a fraction without digits");
        }
        if (peek() == 'e' || peek() == 'E') {
            position++;
            if (peek() == '+' || peek() == '-') position++;
            if (!digits()) throw error("an exponent without digits");
        }
        return Double.valueOf(text.substring(start, position));
    }

    private boolean digits() {
        int start = position;
        while (position < text.length() && text.charAt(position) >= '0' && text.charAt(position) <= '9') position++;
        return position > start;
    }

    private Object literal(String word, Object value) throws SyntaxException {
        if (!text.startsWith(word, position)) throw error("unexpected character");
        position += word.length();
        return value;
    }

    private void skipWhitespace() {
        while (position < text.length()) {
            char c = text.charAt(position);
            if (c != ' ' && c != '\t' && c != '\n' && c != '\r') return;
            position++;
        }
    }

    private char peek() {
        return position < text.length() ? text.charAt(position) : '\0';
    }

    private char next() throws SyntaxException {
        if (position >= text.length()) throw error("the text ends early");
        return text.charAt(position++);
    }

    private void expect(char c) throws SyntaxException {
        if (next() != c) throw error("'" + c + "' was expected");
    }

    private SyntaxException error(String what) {
        return new SyntaxException(what + " at offset " + position);
    }

    // Writing

    /** {@code value} (a map, list, string, number, boolean or null) as compact JSON, keys sorted. */
    static String write(Object value) {
        StringBuilder builder = new StringBuilder();
        write(value, builder);
        return builder.toString();
    }

    private static void write(Object value, StringBuilder out) {
        if (value == null) {
            out.append("null");
        } else if (value instanceof String) {
            quote((String) value, out);
        } else if (value instanceof Boolean || value instanceof Integer || value instanceof Long) {
            out.append(value);
        } else if (value instanceof Number) {
            double number = ((Number) value).doubleValue();
            out.append(number == Math.rint(number) && Math.abs(number) < 1e15 ? Long.toString((long) number) : Double.toString(number));
        } else if (value instanceof Map) {
            out.append('{');
            Iterator<? extends Map.Entry<?, ?>> entries = new TreeMap<>((Map<?, ?>) value).entrySet().iterator();
            while (entries.hasNext()) {
                Map.Entry<?, ?> entry = entries.next();
                quote(String.valueOf(entry.getKey()), out);
                out.append(':');
                write(entry.getValue(), out);
                if (entries.hasNext()) out.append(',');
            }
            out.append('}');
        } else if (value instanceof Iterable) {
            out.append('[');
            Iterator<?> items = ((Iterable<?>) value).iterator();
            while (items.hasNext()) {
                write(items.next(), out);
                if (items.hasNext()) out.append(',');
            }
            out.append(']');
        } else {
            throw new IllegalArgumentException("no JSON form for " + value.getClass().getName());
        }
    }

    private static void quote(String text, StringBuilder out) {
        out.append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '"': out.append("\\\""); break;
                case '\\': out.append("\\\\"); break;
                case '\n': out.append("\\n"); break;
                case '\r': out.append("\\r"); break;
                case '\t': out.append("\\t"); break;
                default:
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
            }
        }
        out.append('"');
    }
}
