import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension Policy {
    /// Names in the files that match nothing on this machine, in layer and line order: users and groups that do not
    /// exist, executables that are not there, sink ids not in `knownSinks` (the built-in sinks, the plugins found,
    /// and `callback` for apps using the framework). They change no decision.
    public func warnings(knownSinks: Set<String>) -> [PolicyWarning] {
        var warnings: [PolicyWarning] = []
        for document in documents {
            var found: [(line: Int, warning: PolicyWarning)] = []
            for entry in document.sections {
                let file = document.file, line = entry.line
                switch entry.section {
                case .user(let name) where PolicyPasswdEntry(name: name) == nil:
                    found.append((line, .unknownUser(file: file, line: line, name: name)))
                case .group(let name) where !Self.groupExists(name):
                    found.append((line, .unknownGroup(file: file, line: line, name: name)))
                case .executable(let path) where access(path, F_OK) != 0:
                    found.append((line, .missingExecutable(file: file, line: line, path: path)))
                default:
                    break
                }
                if let sinks = entry.settings.sinks, let source = sinks.sources.first {
                    for sink in sinks.value.subtracting(knownSinks).sorted() {
                        found.append((source.line, .unknownSink(file: file, line: source.line, sink: sink,
                                                                known: knownSinks.sorted())))
                    }
                }
            }
            warnings += found.sorted { $0.line < $1.line }.map(\.warning)
        }
        return warnings
    }

    /// Whether the group database knows `name` (`getgrnam_r`).
    static func groupExists(_ name: String) -> Bool {
        var size = 16_384
        while size <= 1 << 22 {
            var group = Glibc.group()
            var result: UnsafeMutablePointer<Glibc.group>? = nil
            var buffer = [CChar](repeating: 0, count: size)
            let rc = buffer.withUnsafeMutableBufferPointer { getgrnam_r(name, &group, $0.baseAddress!, $0.count, &result) }
            if rc == ERANGE { size *= 4; continue }
            return rc == 0 && result != nil
        }
        return false
    }
}
