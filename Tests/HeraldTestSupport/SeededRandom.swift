/// A small deterministic generator, so a failure found by generated input can be repeated.
public struct SeededRandom {
    private var state: UInt64
    public init(seed: UInt64) { state = seed }
    /// A number from 0 to `bound` - 1.
    public mutating func next(upTo bound: Int) -> Int {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        return Int((state >> 33) % UInt64(bound))
    }
}
