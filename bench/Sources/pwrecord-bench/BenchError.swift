/// Why a benchmark command could not run; each case says what to do.
enum BenchError: Error, CustomStringConvertible {
    case usage(String)
    case setup(String)
    case failed(String)

    var description: String {
        switch self {
        case .usage(let what): "\(what); see `pwrecord-bench help`"
        case .setup(let what): "\(what) (is the test desktop running? eval \"$(scripts/test-desktop start)\")"
        case .failed(let what): what
        }
    }

    /// Exit status: 2 for usage, 1 otherwise.
    var exitStatus: Int32 {
        if case .usage = self { return 2 }
        return 1
    }
}
