@testable import Messaging
import Testing

@Suite("Coalescing acknowledgements")
struct AckLedgerTests {
    func ledger(delivered tags: ClosedRange<UInt64>) -> AckLedger {
        var ledger = AckLedger()
        for tag in tags { ledger.delivered(tag) }
        return ledger
    }

    @Test("acks of an in-order prefix go out as one multiple ack")
    func prefixCoalesces() {
        var ledger = ledger(delivered: 1...5)
        #expect(ledger.settle([(1, .ack), (2, .ack), (3, .ack)]) == [.ack(3, multiple: true)])
        #expect(ledger.outstanding == 2)
        #expect(ledger.settle([(4, .ack)]) == [.ack(4, multiple: false)])
    }

    @Test("an ack behind an unsettled delivery is sent at once, singly")
    func outOfOrderAckIsNotHeldBack() {
        var ledger = ledger(delivered: 1...4)
        #expect(ledger.settle([(3, .ack), (4, .ack)]) == [.ack(3, multiple: false), .ack(4, multiple: false)])
        // When the gap closes, only the newly settled tag is acked: 3 and 4 are not acked twice.
        #expect(ledger.settle([(2, .ack), (1, .ack)]) == [.ack(2, multiple: true)])
        #expect(ledger.outstanding == 0)
    }

    @Test("nacks go out singly and first, and a later multiple ack does not cover them twice")
    func nacksFirst() {
        var ledger = ledger(delivered: 1...3)
        #expect(ledger.settle([(1, .ack), (2, .nack(requeue: false)), (3, .ack)]) == [.nack(2, requeue: false), .ack(3, multiple: true)])
    }

    @Test("settling a tag twice, or an unknown tag, sends nothing")
    func duplicatesIgnored() {
        var ledger = ledger(delivered: 1...2)
        #expect(ledger.settle([(1, .ack)]) == [.ack(1, multiple: false)])
        #expect(ledger.settle([(1, .ack), (7, .ack)]) == [])
        #expect(ledger.outstanding == 1)
    }
}
