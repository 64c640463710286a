import JSONKit

/// Which members of an object have been read: a duplicate or a missing required member is a
/// mismatch (the decoder then decides).
struct MemberSet {
    private var bits: UInt32 = 0

    mutating func insert(_ member: Int) throws {
        let bit: UInt32 = 1 << UInt32(member)
        guard bits & bit == 0 else { throw JSONReader.Mismatch() }
        bits |= bit
    }

    func contains(_ member: Int) -> Bool { bits & (1 << UInt32(member)) != 0 }

    func require(_ members: Int...) throws {
        for member in members where !contains(member) { throw JSONReader.Mismatch() }
    }
}
