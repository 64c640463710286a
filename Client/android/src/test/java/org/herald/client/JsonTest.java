package org.herald.client;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.fail;

import java.util.List;
import java.util.Map;
import org.junit.Test;

/** The kit's own JSON reader takes RFC 8259 text and refuses anything else. */
public class JsonTest {
    @Test
    public void valuesEscapesAndNestingAreRead() throws Exception {
        Map<String, Object> object = Json.parseObject(" {\"a\":\"x\\\"\\u00e9\\n\",\"b\":[1,-2.5e2,true,null],\"c\":{}} ");
        assertEquals("x\"é\n", object.get("a"));
        assertEquals(List.of(1.0, -250.0, true), ((List<?>) object.get("b")).subList(0, 3));
        assertEquals(Map.of(), object.get("c"));
    }

    @Test
    public void whatIsNotJsonIsRefused() {
        for (String text : new String[] {"", "{", "{\"a\":1,}", "{\"a\" 1}", "[1] x", "{'a':1}", "01", "\"\t\"", "{\"a\":tru}", "[\"\\x\"]"}) {
            try {
                Json.parse(text);
                fail("read: " + text);
            } catch (Json.SyntaxException expected) {
                // refused
            }
        }
    }

    @Test
    public void writtenJsonReadsBackTheSame() throws Exception {
        Map<String, Object> value = Map.of("z", "q\"\\\u0001", "a", List.of("x", Map.of("k", true)));
        assertEquals(value, Json.parse(Json.write(value)));
        assertEquals("{\"a\":[\"x\",{\"k\":true}],\"z\":\"q\\\"\\\\\\u0001\"}", Json.write(value));
    }
}
