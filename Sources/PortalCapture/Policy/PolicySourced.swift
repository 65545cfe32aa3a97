/// A value together with the policy lines that produced it.
struct PolicySourced<Value: Sendable & Equatable>: Sendable, Equatable {
    var value: Value
    var sources: [PolicySourceLine]
}
