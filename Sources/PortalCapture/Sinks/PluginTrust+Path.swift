#if canImport(Glibc)
import Glibc
#endif

extension PluginTrust {
    /// The most symlinks followed on the way to one path, as the kernel's limit (`MAXSYMLINKS`).
    static let symlinkLimit = 40

    /// Follows `path` one name at a time, as the kernel does, and returns where it leads with every symlink
    /// resolved, and the `lstat` of that place. Each folder is checked (as a folder on the way) before any
    /// name in it is looked up, and each symlink followed must be the user's or root's; so every folder
    /// and link that decides where the path leads is one nobody else can change. Refusals name `subject`.
    ///
    /// This is `realpath(3)` with the checks in between: checking the result's folders afterwards would miss
    /// a folder that only holds a symlink on the way.
    func resolve(_ path: String, for subject: String) throws(SinkError) -> (path: String, status: Glibc.stat) {
        let absolute = path.hasPrefix("/") ? path : try PluginTrust.currentDirectory(for: subject) + "/" + path
        var pending = Array(PluginTrust.names(in: absolute).reversed())  // the next name is last
        var folders: [String] = []  // where we are, from `/` down
        var checked: Set<String> = []
        var links = 0
        while let name = pending.popLast() {
            if name == "." { continue }
            if name == ".." { _ = folders.popLast(); continue }
            let folder = PluginTrust.join(folders)
            if checked.insert(folder).inserted {
                let place = Place(path: folder, what: "the folder \(folder) on the way to it", onTheWay: true)
                try check(try linkStatus(folder, for: subject), place, for: subject)
            }
            let here = PluginTrust.join(folders + [name])
            let st = try linkStatus(here, for: subject)
            switch st.st_mode & S_IFMT {
            case S_IFLNK:
                links += 1
                guard links <= PluginTrust.symlinkLimit else {
                    throw .pluginRejected(path: subject, reason:
                        "more than \(PluginTrust.symlinkLimit) symlinks on the way to it")
                }
                try checkOwner(st, what: "the symlink \(here) on the way to it", for: subject)
                let target = try PluginTrust.linkTarget(here, for: subject)
                if target.hasPrefix("/") { folders = [] }
                pending.append(contentsOf: PluginTrust.names(in: target).reversed())
            case S_IFDIR:
                folders.append(name)
            default:
                guard pending.isEmpty else {
                    throw .pluginRejected(path: subject, reason: "\(here) is on the way to it but is not a folder")
                }
                folders.append(name)
            }
        }
        let resolved = PluginTrust.join(folders)
        return (resolved, try linkStatus(resolved, for: subject))
    }

    private static func names(in path: String) -> [String] {
        path.split(separator: "/").map(String.init)
    }

    private static func join(_ names: [String]) -> String { "/" + names.joined(separator: "/") }

    private static func linkTarget(_ link: String, for subject: String) throws(SinkError) -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink(link, &buffer, buffer.count - 1)
        guard count >= 0 else {
            throw .pluginRejected(path: subject, reason: "cannot read the symlink \(link): \(errnoText())")
        }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func currentDirectory(for subject: String) throws(SinkError) -> String {
        guard let p = getcwd(nil, 0) else {
            throw .pluginRejected(path: subject, reason: "cannot find the current folder: \(errnoText())")
        }
        defer { free(p) }
        return String(cString: p)
    }
}
