@testable import HTTPTransport
import Testing

/// Reading the lines of a response head that curl hands over.
@Suite struct HeaderLineTests {
    private func read(_ line: String) -> HeaderLine {
        Array(line.utf8).withUnsafeBytes { HeaderLine($0) }
    }

    @Test func aFieldIsItsLowercasedNameAndItsValueWithoutSurroundingBlanks() {
        #expect(read("Retry-After: \t 120 \r\n") == .field(name: "retry-after", value: "120"))
        #expect(read("content-type:application/json\r\n") == .field(name: "content-type", value: "application/json"))
    }

    @Test func aValueKeepsItsInnerSpacesAndColons() {
        #expect(read("Date: Tue, 24 Nov 2026 10:00:00 GMT\r\n") == .field(name: "date", value: "Tue, 24 Nov 2026 10:00:00 GMT"))
    }

    @Test func anEmptyValueIsEmpty() {
        #expect(read("X-Empty:\r\n") == .field(name: "x-empty", value: ""))
    }

    @Test func aStatusLineStartsABlock() {
        #expect(read("HTTP/2 200 \r\n") == .status)
        #expect(read("HTTP/1.1 100 Continue\r\n") == .status)
    }

    @Test func theBlankLineAndALineWithoutAColonAreNeitherFieldNorStatus() {
        #expect(read("\r\n") == .other)
        #expect(read("garbage\r\n") == .other)
    }

    @Test func nonASCIINameBytesAreKeptAsTheyAre() {
        #expect(read("X-Ünï: v\r\n") == .field(name: "x-Ünï", value: "v"))
    }
}
