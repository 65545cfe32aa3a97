import Foundation

/// A fresh folder under /tmp, removed on deinit.
final class TemporaryDirectory {
    let path: String

    init(_ label: String = "sinks") {
        var template = Array("/tmp/pwrecord-\(label)-XXXXXX".utf8CString)
        let p = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        path = String(cString: p!)
    }

    func file(_ name: String) -> String { path + "/" + name }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}
