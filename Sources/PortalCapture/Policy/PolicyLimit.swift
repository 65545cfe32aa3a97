/// A duration limit: a length, or no limit. The shorter limit is the stricter.
enum PolicyLimit: Sendable, Equatable {
    case unlimited
    case limited(Duration)

    var duration: Duration? {
        if case .limited(let d) = self { return d }
        return nil
    }

    var policyDescription: String {
        switch self {
        case .unlimited: "unlimited"
        case .limited(let d): d.policyDescription
        }
    }
}
