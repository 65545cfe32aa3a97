/// What `DeliveryQueue.finish()` or `cancel()` returns once every sink is closed.
public struct DeliveryReport: Sendable, Equatable {
    /// One per sink, in the order the sinks were given.
    public var outcomes: [SinkOutcome]
    public var statistics: DeliveryStatistics
    /// Whether queued samples were thrown away (`cancel()`) rather than delivered.
    public var cancelled: Bool

    public init(outcomes: [SinkOutcome], statistics: DeliveryStatistics, cancelled: Bool) {
        self.outcomes = outcomes
        self.statistics = statistics
        self.cancelled = cancelled
    }

    /// Every sink error, tagged with its sink.
    public var errors: [(sink: String, error: SinkError)] {
        outcomes.flatMap { outcome in outcome.errors.map { (outcome.sink, $0) } }
    }

    /// The results of the sinks whose `close()` returned one.
    public var results: [SinkResult] { outcomes.compactMap(\.result) }
}
