import HeraldModel

/// Sends the parts of a batch concurrently and puts each result back in the batch's order:
/// how a dispatcher splits a batch by app, and a client by provider request. A delivery a
/// part gave no result for (an adapter's defect) fails rather than vanishes.
public enum BatchParts {
    public typealias Send = @Sendable ([DispatchRequest]) async -> [SendResult]

    /// `groups` are indices into `batch`, each index in one group; `send` gets each group's
    /// requests in the group's order.
    public static func send(_ batch: [DispatchRequest], in groups: [[Int]], _ send: @escaping Send) async -> [SendResult] {
        var results = [SendResult?](repeating: nil, count: batch.count)
        if groups.count == 1 {
            for (index, result) in zip(groups[0], await send(groups[0].map { batch[$0] })) { results[index] = result }
        } else {
            await withTaskGroup(of: ([Int], [SendResult]).self) { group in
                for indices in groups {
                    group.addTask { (indices, await send(indices.map { batch[$0] })) }
                }
                for await (indices, part) in group {
                    for (index, result) in zip(indices, part) { results[index] = result }
                }
            }
        }
        return results.map { $0 ?? missing }
    }

    /// What a delivery gets when the provider layer returned no result for it.
    public static let missing = SendResult.failed(.unreadableAnswer, "the provider layer gave no result for this delivery")
}
