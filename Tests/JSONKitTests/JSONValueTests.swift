import Foundation
import JSONKit
import Testing

/// `JSONValue`, read by `JSONReader` and written by `JSONWriter`: the one dynamic JSON value.
@Suite("Any JSON value")
struct JSONValueTests {
    /// The type Foundation's parser gives `true` (on Linux a 0 or 1 also passes `is Bool`).
    static let booleanType: Any.Type = type(of: try! JSONSerialization.jsonObject(with: Data("true".utf8), options: [.fragmentsAllowed]))

    /// What Foundation's parser reads, as a `JSONValue` (numbers by their value), to compare with.
    static func foundation(_ text: String) throws -> JSONValue {
        func convert(_ any: Any) -> JSONValue {
            switch any {
            case is NSNull: return .null
            case let text as String: return .string(text)
            case let list as [Any]: return .array(list.map(convert))
            case let object as [String: Any]: return .object(object.mapValues(convert))
            case let number as NSNumber:
                if type(of: number) == booleanType { return .bool(number.boolValue) }
                return .double(number.doubleValue)
            default: return .string("?\(any)")
            }
        }
        return convert(try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed]))
    }

    /// A value with its numbers in one form, so that `1.0` and `1` compare equal.
    static func normalized(_ value: JSONValue) -> JSONValue {
        switch value {
        case .number(let text): return .double(Double(text)!)
        case .array(let list): return .array(list.map(normalized))
        case .object(let object): return .object(object.mapValues(normalized))
        default: return value
        }
    }

    static let documents = [
        #"{"a":1,"b":[true,false,null],"c":{"d":"e"}}"#,
        #"  [ 1 , -2.5 , 3e2 , 0 , -0 , 1E-3 , 12345678901234 ]  "#,
        #""\u00e9\ud83c\udf89 \" \\ \/ \b\f\n\r\t""#,
        #"{"ünïcödé":"🎉","empty":{},"list":[],"s":""}"#,
        #"{"nested":[[[[{"x":[1,{"y":null}]}]]]]}"#,
        "true", "null", "-1.25e+10",
    ]

    @Test func readsWhatFoundationReads() throws {
        for text in Self.documents {
            let value = try JSONValue(json: Data(text.utf8))
            #expect(Self.normalized(value) == Self.normalized(try Self.foundation(text)), "\(text)")
        }
    }

    @Test func writesWhatItReadsAndReadsWhatItWrites() throws {
        for text in Self.documents {
            let value = try JSONValue(json: Data(text.utf8))
            #expect(try JSONValue(json: value.json) == value, "\(text)")
        }
    }

    @Test func aNumberIsWrittenAsItCame() throws {
        let value = try JSONValue(json: Data(#"{"b":1e2,"a":1.50,"c":-0,"d":12345678901234567890}"#.utf8))
        #expect(value.text == #"{"a":1.50,"b":1e2,"c":-0,"d":12345678901234567890}"#)
    }

    @Test func aDuplicateMemberKeepsItsLastValue() throws {
        #expect(try JSONValue(json: Data(#"{"a":1,"a":2}"#.utf8)) == .object(["a": .number("2")]))
    }

    @Test func refusesWhatIsNotJSON() {
        let invalid = [
            "", " ", "{", "[1,]", #"{"a":1,}"#, "01", "1.", ".5", "-", "+1", "1e", "0x10", "NaN", "Infinity", "tru", "nul",
            #""unterminated"#, "\"tab\there\"", #""\x""#, #""\ud800""#, #""\ud800\u0041""#, "[1] [2]", "{\"a\" 1}", "{a:1}", "'a'",
        ]
        for text in invalid {
            #expect(throws: JSONReader.Mismatch.self, "\(text)") { try JSONValue(json: Data(text.utf8)) }
        }
        #expect(throws: JSONReader.Mismatch.self) { try JSONValue(json: Data([0x22, 0xFF, 0x22])) }
    }

    @Test func nestsAsDeepAsTheLimitAndRefusesDeeperWithoutRecursingOn() throws {
        let limit = JSONValue.maximumDepth
        let deepest = String(repeating: "[", count: limit) + String(repeating: "]", count: limit)
        _ = try JSONValue(json: Data(deepest.utf8))
        let deeper = String(repeating: "[", count: limit + 1) + String(repeating: "]", count: limit + 1)
        #expect(throws: JSONReader.Mismatch.self) { try JSONValue(json: Data(deeper.utf8)) }
        // A body of the gateway's largest size, all opening brackets.
        #expect(throws: JSONReader.Mismatch.self) { try JSONValue(json: Data(String(repeating: "[{\"a\":", count: 20_000).utf8)) }
    }

    @Test func anIntegerIsOnlyAWholeNumberOfAtMostFifteenDigits() {
        #expect(JSONValue.number("3").intValue == 3)
        #expect(JSONValue.number("3.0").intValue == 3)
        #expect(JSONValue.number("-3e2").intValue == -300)
        #expect(JSONValue.number("3.5").intValue == nil)
        #expect(JSONValue.number("1e15").intValue == nil)
        #expect(JSONValue.bool(true).intValue == nil)
        #expect(JSONValue.string("3").intValue == nil)
    }

    @Test func indentsForPeople() throws {
        let value = try JSONValue(json: Data(#"{"b":{},"a":[1,{"c":"d"}],"e":[]}"#.utf8))
        #expect(value.prettyText == """
            {
              "a" : [
                1,
                {
                  "c" : "d"
                }
              ],
              "b" : {},
              "e" : []
            }
            """)
        #expect(try JSONValue(json: Data(value.prettyText.utf8)) == value)
    }

    @Test func writesWhatSwiftCodeBuildsAndFoundationParses() throws {
        let built: [String: Any] = ["flag": true, "count": 3, "ratio": 0.5, "list": ["a", 1], "none": NSNull(), "nested": ["k": "v"]]
        #expect(try JSONValue(any: built).text == #"{"count":3,"flag":true,"list":["a",1],"nested":{"k":"v"},"none":null,"ratio":0.5}"#)
        // Foundation's parser gives 0, 1 and true all as NSNumber: a boolean stays a boolean, a number a number.
        let parsed = try JSONSerialization.jsonObject(with: Data(#"{"one":1,"yes":true,"zero":0,"big":12345678901234}"#.utf8))
        #expect(try JSONValue(any: parsed).text == #"{"big":12345678901234,"one":1,"yes":true,"zero":0}"#)
        #expect(throws: JSONValue.Unrepresentable.self) { try JSONValue(any: ["date": Date()]) }
        #expect(throws: JSONValue.Unrepresentable.self) { try JSONValue(any: Double.nan) }
    }
}
