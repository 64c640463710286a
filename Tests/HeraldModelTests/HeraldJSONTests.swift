import Foundation
import HeraldModel
import Testing

@Suite("HeraldJSON's helpers")
struct HeraldJSONTests {
    @Test("JSON true and false are booleans; the numbers 0 and 1, other numbers and strings are not")
    func booleansAreToldFromNumbers() throws {
        let parsed = try #require(try JSONSerialization.jsonObject(
            with: Data(#"{"t":true,"f":false,"zero":0,"one":1,"half":1.5,"text":"true"}"#.utf8)) as? [String: Any])
        #expect(HeraldJSON.isBoolean(try #require(parsed["t"])))
        #expect(HeraldJSON.isBoolean(try #require(parsed["f"])))
        for key in ["zero", "one", "half", "text"] {
            #expect(!HeraldJSON.isBoolean(try #require(parsed[key])), "\(key)")
        }
    }
}
