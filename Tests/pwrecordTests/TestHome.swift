import Foundation

/// A private home for one test: its own state and config folders (so kept recordings, policies and config
/// files do not mix between tests) and a folder to run `pwrecord` in.
struct TestHome {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("cli-\(UUID().uuidString)")

    init() throws {
        try FileManager.default.createDirectory(at: root.appendingPathComponent("work"), withIntermediateDirectories: true)
    }

    var env: [String: String] { ["XDG_STATE_HOME": root.path + "/state", "XDG_CONFIG_HOME": root.path + "/config", "HOME": root.path] }
    /// A folder to run pwrecord in (its current folder).
    var work: URL { root.appendingPathComponent("work") }
    var configFile: URL { root.appendingPathComponent("config/pwrecord/config") }

    func writeConfig(_ text: String) throws { try write(Data(text.utf8), to: configFile) }

    func write(_ data: Data, to file: URL) throws {
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: file)
    }

    func folder(_ name: String) throws -> URL {
        let url = root.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    func remove() { try? FileManager.default.removeItem(at: root) }
}
