import DequeModule

/// The deliveries of one channel that are not settled yet, and the fewest frames that
/// settle them. Settlements that complete an in-order prefix go out as one `multiple` ack;
/// the others are sent one by one at once, so an ack is never held back (a held ack would
/// keep a prefetch slot busy). Nacks are always sent singly, before any ack.
struct AckLedger {
    enum Frame: Hashable {
        case ack(UInt64, multiple: Bool)
        case nack(UInt64, requeue: Bool)
    }

    private enum State {
        case outstanding, ackPending, settled
    }

    /// Tags in delivery order (increasing); settled ones stay until everything before them is.
    private var entries = Deque<(tag: UInt64, state: State)>()

    /// Deliveries handed out and not settled yet.
    private(set) var outstanding = 0

    mutating func delivered(_ tag: UInt64) {
        entries.append((tag, .outstanding))
        outstanding += 1
    }

    /// Applies settlements (duplicates and unknown tags are ignored) and returns the frames to send.
    mutating func settle(_ settlements: [(tag: UInt64, kind: SettlementKind)]) -> [Frame] {
        var frames: [Frame] = []
        for settlement in settlements {
            guard let index = index(of: settlement.tag), entries[index].state == .outstanding else { continue }
            outstanding -= 1
            switch settlement.kind {
            case .nack(let requeue):
                frames.append(.nack(settlement.tag, requeue: requeue))
                entries[index].state = .settled
            case .ack:
                entries[index].state = .ackPending
            }
        }
        var prefixAcks = 0
        var lastPrefixAck: UInt64?
        while let first = entries.first, first.state != .outstanding {
            if first.state == .ackPending {
                prefixAcks += 1
                lastPrefixAck = first.tag
            }
            entries.removeFirst()
        }
        if let tag = lastPrefixAck {
            frames.append(.ack(tag, multiple: prefixAcks > 1))
        }
        for index in entries.indices where entries[index].state == .ackPending {
            frames.append(.ack(entries[index].tag, multiple: false))
            entries[index].state = .settled
        }
        return frames
    }

    private func index(of tag: UInt64) -> Int? {
        var low = 0
        var high = entries.count - 1
        while low <= high {
            let middle = (low + high) / 2
            let candidate = entries[middle].tag
            if candidate == tag { return middle }
            if candidate < tag { low = middle + 1 } else { high = middle - 1 }
        }
        return nil
    }
}
