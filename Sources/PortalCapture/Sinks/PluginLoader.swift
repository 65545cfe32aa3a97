#if canImport(Glibc)
import Glibc
#endif
import CPluginABI
import Foundation
import Synchronization

/// Finds and loads third-party sink plugins: shared objects exporting `pwrec_sink_entry` (see
/// `pwrec_plugin.h` and docs/plugins.md), from `/usr/lib/pwrecord/plugins`, `/usr/local/lib/pwrecord/plugins`
/// and `~/.local/lib/pwrecord/plugins`.
///
/// Before `dlopen`, each folder and file must pass the trust rules (owned by you or root, not writable by
/// group or others, and likewise every folder on the way to them; see `PluginTrust`). The file is opened
/// once, checked through that descriptor and loaded through it (`PluginFile`). After `dlopen`, the table
/// `pwrec_sink_entry(PWREC_SINK_ABI_VERSION)` returns is refused unless its `abi_version` is one this host
/// speaks and its `struct_size` covers the version's fields; in that case nothing else in it is called.
/// Libraries are never `dlclose`d (unloading a Swift library is not supported, and a sink may still be alive).
public struct PluginLoader: Sendable {
    /// Folders searched in order. Missing folders are skipped; files are taken in name order.
    public var directories: [String]
    /// How the sinks of the plugins loaded run apart from the recording's other sinks (their own thread and
    /// queue, and how long the end waits for them). Default: `SinkIsolation()`.
    public var isolation = SinkIsolation()
    /// Load only plugins root installed (file and folder root's); others are refused before `dlopen`, so none
    /// of their code runs. For a policy with a `sinks` list, under which only those may make sinks anyway
    /// (`SinkFactory.installedByRoot`).
    public var rootInstalledOnly = false
    private let trust: PluginTrust
    /// Where the process's open descriptors are named (`/proc/self/fd`); plugins are loaded through it.
    private let descriptorFolder: String

    /// The standard plugin folders; `home` defaults to the user's home as pwrecord's other files find it:
    /// `$HOME` when absolute, else the passwd entry's (no user folder when neither is known).
    public static func defaultDirectories(home: String? = nil) -> [String] {
        defaultDirectories(home: home, environment: ProcessInfo.processInfo.environment)
    }

    static func defaultDirectories(home: String?, environment: [String: String],
                                   passwdHome: () -> String? = { PolicyPasswdEntry(uid: geteuid())?.home }) -> [String] {
        var dirs = ["/usr/lib/pwrecord/plugins", "/usr/local/lib/pwrecord/plugins"]
        if let h = home ?? UserHome.path(environment: environment, passwdHome: passwdHome), !h.isEmpty {
            dirs.append(h + "/.local/lib/pwrecord/plugins")
        }
        return dirs
    }

    public init(directories: [String] = PluginLoader.defaultDirectories()) {
        self.init(directories: directories, descriptorFolder: "/proc/self/fd")
    }

    init(directories: [String], descriptorFolder: String, trust: PluginTrust = PluginTrust()) {
        self.directories = directories
        self.trust = trust
        self.descriptorFolder = descriptorFolder
    }

    /// This loader with the plugins' sinks isolated as `value` says.
    public func isolation(_ value: SinkIsolation) -> Self { var c = self; c.isolation = value; return c }

    /// This loader loading only plugins root installed, when `value`.
    public func rootInstalledOnly(_ value: Bool) -> Self { var c = self; c.rootInstalledOnly = value; return c }

    /// A loaded library's file, by device and inode.
    struct LoadedLibrary: Hashable {
        var device: UInt
        var inode: UInt
    }

    /// The libraries this process loaded (never closed), by file; the handle as its bit pattern.
    private static let loadedLibraries = Mutex<[LoadedLibrary: UInt]>([:])

    /// What a scan found.
    public struct Scan: Sendable {
        /// One factory per loaded plugin, in folder and name order.
        public var factories: [SinkFactory]
        /// Folders and files that were refused (`pluginRejected`), each with its reason and fix.
        public var rejected: [SinkError]
    }

    /// Loads every `*.so` in the folders. Refusals do not stop the scan; they are returned.
    public func scan() -> Scan {
        var scan = Scan(factories: [], rejected: [])
        var seen = Set<String>()
        for dir in directories {
            guard PluginLoader.exists(dir) else { continue }
            do {
                try trust.checkDirectory(dir)
            } catch {
                scan.rejected.append(error)
                continue
            }
            for name in PluginLoader.sharedObjects(in: dir) {
                do {
                    let factory = try load(file: dir + "/" + name)
                    if seen.insert(factory.id).inserted {
                        scan.factories.append(factory)
                    } else {
                        scan.rejected.append(.pluginRejected(path: dir + "/" + name, reason:
                            "another plugin already provides the sink id '\(factory.id)'; remove one of them"))
                    }
                } catch {
                    scan.rejected.append(error)
                }
            }
        }
        return scan
    }

    /// Checks and loads one plugin file (its folder must pass the trust rules too).
    public func load(file path: String) throws(SinkError) -> SinkFactory {
        try trust.checkDirectory(PluginTrust.parentDirectory(of: path))
        let file = try trust.openFile(path)
        var st = stat(), folder = stat()
        let installedByRoot = fstat(file.descriptor, &st) == 0 && st.st_uid == 0
            && stat(PluginTrust.parentDirectory(of: path), &folder) == 0 && folder.st_uid == 0
        if rootInstalledOnly && !installedByRoot {
            throw .pluginRejected(path: path, reason: "the recording policy lists the sinks allowed, and only plugins "
                + "root installed may provide them; this one is not root's (file and folder), so it was not loaded")
        }
        return try load(file, path: path, installedByRoot: installedByRoot)
    }

    /// Loads a file `PluginTrust` opened and checked, through its descriptor: what runs is what was checked.
    func load(_ file: consuming PluginFile, path: String, installedByRoot: Bool = false) throws(SinkError) -> SinkFactory {
        let name = try file.loaderPath(in: descriptorFolder, for: path)
        var st = stat()
        let identity = fstat(file.descriptor, &st) == 0 ? LoadedLibrary(device: UInt(st.st_dev), inode: UInt(st.st_ino)) : nil
        let handle: UnsafeMutableRawPointer
        if let identity, let known = PluginLoader.loadedLibraries.withLock({ $0[identity] }),
           let loaded = UnsafeMutableRawPointer(bitPattern: known) {
            // Loaded before (a second scan): the dynamic loader would hand back the same library under one
            // more /proc/self/fd name, whose descriptor would then have to stay open. This one closes.
            handle = loaded
        } else {
            guard let opened = dlopen(name, RTLD_NOW | RTLD_LOCAL) else {
                // dlerror names the file as it was opened (/proc/self/fd/N): the user knows it by its path.
                throw .pluginRejected(path: path, reason: "dlopen failed: "
                                      + PluginLoader.dlerrorText().replacing(name + ":", with: path + ":"))
            }
            handle = opened
            if let identity { PluginLoader.loadedLibraries.withLock { $0[identity] = UInt(bitPattern: opened) } }
            // The loader knows the library by its /proc/self/fd name: that number must not name another file.
            file.keepOpen()
        }
        // Never dlclose: see the type's comment. The handle stays valid for the life of the process.
        guard let sym = dlsym(handle, PWREC_SINK_ENTRY_SYMBOL) else {
            throw .pluginRejected(path: path, reason:
                "not a pwrecord plugin: it does not export \(PWREC_SINK_ENTRY_SYMBOL)")
        }
        let entry = unsafeBitCast(sym, to: pwrec_sink_entry_fn.self)
        guard let table = entry(PWREC_ABI_VERSION_CURRENT) else {
            throw .pluginRejected(path: path, reason:
                "the plugin declined this host's plugin ABI \(PWREC_ABI_VERSION_CURRENT); install a build of the plugin for this pwrecord")
        }
        return try PluginLoader.factory(from: table, path: path, isolation: isolation, installedByRoot: installedByRoot)
    }

    /// Validates a table and wraps it in a factory. Reads `abi_version` and `struct_size` first and nothing
    /// else until both pass.
    static func factory(from table: UnsafePointer<pwrec_sink_v1>, path: String,
                        isolation: SinkIsolation = SinkIsolation(),
                        installedByRoot: Bool = false) throws(SinkError) -> SinkFactory {
        let raw = UnsafeRawPointer(table)
        let version = raw.load(fromByteOffset: 0, as: UInt32.self)
        let size = raw.load(fromByteOffset: 4, as: UInt32.self)
        guard version == PWREC_ABI_VERSION_CURRENT else {
            throw .pluginRejected(path: path, reason:
                "the plugin implements plugin ABI \(version), this pwrecord speaks \(PWREC_ABI_VERSION_CURRENT); install a build of the plugin for this pwrecord")
        }
        guard size >= PWREC_SINK_V1_MIN_SIZE else {
            throw .pluginRejected(path: path, reason:
                "the plugin's table is \(size) bytes, plugin ABI \(version) needs at least \(PWREC_SINK_V1_MIN_SIZE); rebuild it against pwrec_plugin.h")
        }
        let t = table.pointee
        guard let idPtr = t.id else { throw .pluginRejected(path: path, reason: "the plugin's table has no id") }
        let id = String(cString: idPtr)
        guard SinkSpec.isValidID(id) else {
            throw .pluginRejected(path: path, reason:
                "the sink id '\(id)' is not lowercase letters, digits, '-' and '_'")
        }
        guard t.create != nil, t.open != nil, t.write_video != nil, t.close != nil, t.destroy != nil else {
            throw .pluginRejected(path: path, reason:
                "the plugin's table lacks a required function (create, open, write_video, close, destroy)")
        }
        guard t.option_count == 0 || t.options != nil, t.option_count <= 256 else {
            throw .pluginRejected(path: path, reason: "the plugin's option list is malformed")
        }
        var options: [SinkOptionInfo] = []
        for i in 0..<Int(t.option_count) {
            let o = t.options[i]
            guard let name = o.name else {
                throw .pluginRejected(path: path, reason: "option \(i + 1) of the plugin has no name")
            }
            // A plugin's `output=` and `audio=` are taken for paths, as the built-in sinks' are; the C table says no more.
            let optionName = String(cString: name)
            options.append(SinkOptionInfo(optionName,
                                          default: o.default_value.map { String(cString: $0) },
                                          summary: o.description.map { String(cString: $0) } ?? "",
                                          isPath: SinkOptionInfo.conventionalPathNames.contains(optionName)))
        }
        let summary = t.description.map { String(cString: $0) } ?? "(plugin)"
        let plugin = PluginTable(table: table, id: id, path: path)
        return SinkFactory(id: id, summary: summary, options: options, origin: path,
                           installedByRoot: installedByRoot) { (opts) throws(SinkError) in
            try PluginSink(plugin: plugin, options: opts, isolation: isolation)
        }
    }

    private static func exists(_ path: String) -> Bool {
        var st = stat()
        return lstat(path, &st) == 0
    }

    /// Names ending in `.so` in `dir`, sorted.
    private static func sharedObjects(in dir: String) -> [String] {
        guard let d = opendir(dir) else { return [] }
        defer { closedir(d) }
        var names: [String] = []
        while let entry = readdir(d) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(cString: raw.baseAddress!.assumingMemoryBound(to: CChar.self))
            }
            if name.hasSuffix(".so") && !name.hasPrefix(".") { names.append(name) }
        }
        return names.sorted()
    }

    private static func dlerrorText() -> String {
        dlerror().map { String(cString: $0) } ?? "unknown error"
    }
}

/// A validated plugin table. The pointer refers to static data in a library that is never unloaded.
struct PluginTable: @unchecked Sendable {
    let table: UnsafePointer<pwrec_sink_v1>
    let id: String
    let path: String
}

extension SinkRegistry {
    /// Registers the plugins `loader` finds. Returns the refusals (bad trust, bad ABI, ids that clash with a
    /// registered sink) for the caller to show, e.g. in `pwrecord sinks`.
    public mutating func registerPlugins(from loader: PluginLoader) -> [SinkError] {
        let scan = loader.scan()
        var rejected = scan.rejected
        for factory in scan.factories {
            do {
                try register(factory)
            } catch {
                rejected.append(.pluginRejected(path: factory.origin, reason:
                    "its sink id '\(factory.id)' is already taken by a sink that is registered; rename the plugin's id"))
            }
        }
        return rejected
    }
}
