/// Canonical directories; tightening keeps what lies inside both lists (`/home/a` and `/home/a/Videos` give
/// `/home/a/Videos`; unrelated directories give nothing).
struct PolicyDirectories: PolicyTightening {
    var paths: [String]

    func tightened(with other: PolicyDirectories) -> PolicyDirectories {
        var result: [String] = []
        for path in paths where other.paths.contains(where: { PolicyPath.isInside(path, $0) }) {
            if !result.contains(path) { result.append(path) }
        }
        for path in other.paths where paths.contains(where: { PolicyPath.isInside(path, $0) }) {
            if !result.contains(path) { result.append(path) }
        }
        return PolicyDirectories(paths: result)
    }
}
