import DispatchKit
import HeraldModel
import HeraldTestSupport
import HeraldStackTestSupport
import Testing

/// Splitting a batch into parts sent concurrently, and putting the results back in order.
struct BatchPartsTests {
    @Test func eachResultReturnsToItsDeliverysPlaceWhateverTheGroups() async {
        let batch = ["a", "b", "c", "d", "e"].map { TestSandbox.request(token: $0) }
        let results = await BatchParts.send(batch, in: [[4, 0], [2], [1, 3]]) { part in part.map { .delivered(providerId: $0.token) } }
        #expect(results == ["a", "b", "c", "d", "e"].map { .delivered(providerId: $0) })
    }

    @Test func aDeliveryAPartGaveNoResultForFailsInsteadOfVanishing() async {
        let batch = ["a", "b", "c"].map { TestSandbox.request(token: $0) }
        let results = await BatchParts.send(batch, in: [[0, 1, 2]]) { part in [.delivered(providerId: part[0].token)] }
        #expect(results == [.delivered(providerId: "a"), BatchParts.missing, BatchParts.missing])
    }
}
