@testable import Registration
import Testing

@Suite("herald_delivery_outcomes_total's code label")
struct DeliveryOutcomeCountersTests {
    @Test("a provider's code is the label; none where Herald decided; anything else is other, so the label set stays small")
    func codesAreBounded() {
        #expect(DeliveryOutcomeCounters.label(nil) == "none")
        #expect(DeliveryOutcomeCounters.label("UNREGISTERED") == "UNREGISTERED")
        #expect(DeliveryOutcomeCounters.label("80300007") == "80300007")
        #expect(DeliveryOutcomeCounters.label("token abc-123 is dead") == "other")
        #expect(DeliveryOutcomeCounters.label(String(repeating: "A", count: 41)) == "other")
        #expect(DeliveryOutcomeCounters.label("") == "other")
    }
}
