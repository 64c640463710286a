import HeraldModel

/// An event's progress as the event log keeps it: one small integer (SQLite stores 0 and 1
/// in no bytes at all), `delivered` being 1, the common case the status index leaves out.
extension EventProgress {
    var storedCode: Int {
        switch self {
        case .pending: 0
        case .delivered: 1
        case .partial: 2
        case .failed: 3
        case .filtered: 4
        }
    }

    init?(storedCode: Int) {
        guard let progress = Self.allCases.first(where: { $0.storedCode == storedCode }) else { return nil }
        self = progress
    }
}
