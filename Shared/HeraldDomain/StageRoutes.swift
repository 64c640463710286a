import HeraldModel
import Messaging

/// Where a pipeline stage reads and writes: its input queue, the exchange its main output
/// goes to, and the outcomes exchange. Services use Herald's topology; tests and benchmarks
/// give private names.
public struct StageRoutes: Sendable {
    public var input: QueueSpec
    public var output: ExchangeSpec
    public var outcomes: ExchangeSpec

    public init(input: QueueSpec, output: ExchangeSpec, outcomes: ExchangeSpec = HeraldTopology.Exchange.outcomes) {
        self.input = input
        self.output = output
        self.outcomes = outcomes
    }
}
