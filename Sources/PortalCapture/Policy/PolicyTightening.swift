/// A value kind the policy can combine: `tightened(with:)` gives the stricter of the two (deny over allow, the
/// shorter limit, the common hours, the common sinks and directories).
protocol PolicyTightening: Sendable, Equatable {
    func tightened(with other: Self) -> Self
}

extension PolicyPermission: PolicyTightening {
    func tightened(with other: PolicyPermission) -> PolicyPermission { self == .deny || other == .deny ? .deny : .allow }
}

extension PolicyLimit: PolicyTightening {
    func tightened(with other: PolicyLimit) -> PolicyLimit {
        switch (self, other) {
        case (.unlimited, _): other
        case (_, .unlimited): self
        case (.limited(let a), .limited(let b)): .limited(min(a, b))
        }
    }
}

extension PolicyHours: PolicyTightening {
    func tightened(with other: PolicyHours) -> PolicyHours { intersection(other) }
}

extension Set<String>: PolicyTightening {
    func tightened(with other: Set<String>) -> Set<String> { intersection(other) }
}

/// The stricter of two sourced values; the sources are those of the value that won, or of both when both
/// made the result.
func policyTighten<T: PolicyTightening>(_ a: PolicySourced<T>?, _ b: PolicySourced<T>?) -> PolicySourced<T>? {
    guard let a else { return b }
    guard let b else { return a }
    let value = a.value.tightened(with: b.value)
    let sources: [PolicySourceLine]
    if value == a.value && value != b.value {
        sources = a.sources
    } else if value == b.value && value != a.value {
        sources = b.sources
    } else {
        sources = a.sources + b.sources.filter { !a.sources.contains($0) }
    }
    return PolicySourced(value: value, sources: sources)
}
