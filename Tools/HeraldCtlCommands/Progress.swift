import Foundation

/// A progress bar on standard error, redrawn at most ten times a second.
final class Progress: @unchecked Sendable {
    private let total: Int
    private let enabled: Bool
    private let lock = NSLock()
    private var lastDraw = Date.distantPast
    private let started = Date()

    init(total: Int, enabled: Bool) {
        self.total = total
        self.enabled = enabled && total > 1
    }

    func update(_ done: Int) {
        guard enabled else { return }
        lock.lock()
        defer { lock.unlock() }
        let now = Date()
        guard done == total || now.timeIntervalSince(lastDraw) >= 0.1 else { return }
        lastDraw = now
        let width = 30
        let filled = total == 0 ? width : done * width / total
        let rate = Double(done) / max(0.001, now.timeIntervalSince(started))
        let bar = String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled)
        FileHandle.standardError.write(Data("\r[\(bar)] \(done)/\(total) \(Int(rate))/s".utf8))
    }

    func finish() {
        guard enabled else { return }
        FileHandle.standardError.write(Data("\n".utf8))
    }
}
