import Foundation
import PortalTestSupport
import Testing
@testable import PortalCapture
import Plugins

/// The trust rules past the plugin folder and file (`PluginTrust`, `PluginFile`): every folder on the way to
/// them is checked, and the file is checked and loaded through one descriptor, so nobody can swap it between.
@Suite("Plugin trust: the folders on the way, and one descriptor from check to load", .serialized)
struct PluginLoaderTrustTests {
    @Test("a plugin linked into a folder below one its group or everyone can write is refused, naming that folder",
          arguments: [(mode_t(0o777), "everyone (mode 0777)"), (mode_t(0o775), "its group (mode 0775)")])
    func writableFolderOnTheWay(mode: mode_t, who: String) throws {
        let tmp = TemporaryDirectory("plugin")
        let dir = tmp.folder("plugins")
        _ = tmp.folder("x")
        let open = tmp.folder("x/ww", mode: mode)
        let marker = tmp.file("created")
        _ = try TestPlugin.build(.init(), name: "libctest.so", in: tmp.folder("x/ww/sub"), marker: marker)
        let plugin = dir + "/libctest.so"
        symlink("../x/ww/sub/libctest.so", plugin)
        let scan = PluginLoader(directories: [dir]).scan()
        #expect(scan.factories.isEmpty)
        let r = try #require(scan.onlyRejection)
        #expect(r.path == plugin)
        #expect(r.reason == "the folder \(open) on the way to it is writable by \(who), so \(mode & 0o002 != 0 ? "anyone" : "anyone in its group") could replace the code; "
                + "run `chmod go-w \(open)` if you trust its contents")
        #expect(!FileManager.default.fileExists(atPath: marker))
    }

    @Test("a plugin folder below a folder everyone can write is refused, naming that folder")
    func pluginFolderBelowOpenFolder() throws {
        let tmp = TemporaryDirectory("plugin")
        let open = tmp.folder("open", mode: 0o777)
        let dir = tmp.folder("open/plugins")
        _ = try TestPlugin.build(.init(), name: "libctest.so", in: dir, marker: tmp.file("created"))
        let scan = PluginLoader(directories: [dir]).scan()
        #expect(scan.factories.isEmpty)
        let r = try #require(scan.onlyRejection)
        #expect(r.path == dir)
        #expect(r.reason.hasPrefix("the folder \(open) on the way to it is writable by everyone (mode 0777)"), "\(r.reason)")
    }

    @Test("/tmp, root's and sticky, is accepted on the way to a plugin folder")
    func tmpOnTheWay() throws {
        var st = stat()
        try #require(stat("/tmp", &st) == 0 && st.st_uid == 0 && st.st_mode & 0o7777 == 0o1777, "/tmp is root's, mode 1777")
        let tmp = TemporaryDirectory("plugin")
        let dir = tmp.folder("plugins")
        _ = try TestPlugin.build(.init(), name: "libctest.so", in: dir, marker: tmp.file("created"))
        let scan = PluginLoader(directories: [dir]).scan()
        #expect(scan.rejected.isEmpty, "\(scan.rejected)")
        #expect(scan.factories.map(\.id) == ["ctest"])
    }

    @Test("a sticky folder of root's is accepted on the way to a plugin, but not as the folder holding it",
          .enabled(if: geteuid() == 0, "only root can make a folder of root's"))
    func stickyRootFolder() throws {
        let tmp = TemporaryDirectory("plugin")
        let dir = tmp.folder("plugins")
        let shared = tmp.folder("shared", mode: 0o1777)
        let below = try TestPlugin.build(.init(), name: "libctest.so", in: tmp.folder("shared/sub"), marker: tmp.file("created"))
        symlink(below, dir + "/libctest.so")
        var scan = PluginLoader(directories: [dir]).scan()
        #expect(scan.rejected.isEmpty, "\(scan.rejected)")
        #expect(scan.factories.map(\.id) == ["ctest"])

        let held = shared + "/libctest.so"
        try FileManager.default.moveItem(atPath: below, toPath: held)
        unlink(dir + "/libctest.so")
        symlink(held, dir + "/libctest.so")
        scan = PluginLoader(directories: [dir]).scan()
        let r = try #require(scan.onlyRejection)
        #expect(r.reason == "the folder \(shared) holding it is writable by everyone (mode 1777), so anyone could replace "
                + "the code; move the plugin to a folder that only you or root can write")
    }

    @Test("a symlink on the way that belongs to another user is refused",
          .enabled(if: geteuid() == 0, "only root can give a symlink away"))
    func foreignSymlink() throws {
        let tmp = TemporaryDirectory("plugin")
        let dir = tmp.folder("plugins")
        let real = tmp.folder("real")
        _ = try TestPlugin.build(.init(), name: "libctest.so", in: real, marker: tmp.file("created"))
        let link = tmp.file("link")
        symlink(real, link)
        lchown(link, 65534, 65534)
        symlink(link + "/libctest.so", dir + "/libctest.so")
        let r = try #require(PluginLoader(directories: [dir]).scan().onlyRejection)
        #expect(r.reason.hasPrefix("the symlink \(link) on the way to it is owned by uid 65534, not by you (uid 0) or root"), "\(r.reason)")
    }

    @Test("an opened file is judged by what fstat says of its descriptor at the check, whatever its path holds")
    func judgedByDescriptor() throws {
        let tmp = TemporaryDirectory("plugin")
        let path = tmp.file("lib.so"), trusted = tmp.file("trusted.so")
        try Data("open".utf8).write(to: URL(fileURLWithPath: path))
        try Data("trusted".utf8).write(to: URL(fileURLWithPath: trusted))
        chmod(path, 0o666)
        chmod(trusted, 0o755)
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        defer { close(fd) }
        let refusal = SinkError.pluginRejected(path: path, reason: "the file is writable by everyone (mode 0666), so "
            + "anyone could replace the code; run `chmod go-w \(path)` if you trust its contents")

        // A trusted file renamed over the path after the open does not make the opened one trusted.
        #expect(rename(trusted, path) == 0)
        #expect(throws: refusal) { try PluginTrust().checkFile(descriptor: fd, path: path, resolved: path) }
        let file = try PluginTrust().openFile(path)
        #expect(throws: Never.self) { try PluginTrust().checkFile(descriptor: file.descriptor, path: path, resolved: path) }

        // A trusted file opened, then made writable by everyone: judged by the mode at the check.
        fchmod(file.descriptor, 0o666)
        #expect(throws: refusal) { try PluginTrust().checkFile(descriptor: file.descriptor, path: path, resolved: path) }
    }

    @Test("the library loaded is the inode that was checked, though its path is swapped before dlopen")
    func loadsTheCheckedInode() throws {
        let tmp = TemporaryDirectory("plugin")
        let dir = tmp.folder("plugins")
        let plugin = try TestPlugin.build(.init(id: "checked"), name: "libctest.so", in: dir, marker: tmp.file("created"))
        let swapped = try TestPlugin.build(.init(id: "swapped"), name: "libctest.so", in: tmp.folder("other"),
                                           marker: tmp.file("created"))
        chmod(swapped, 0o666)
        let file = try PluginTrust().openFile(plugin)
        // What an attacker's rename loop does at the worst moment for a check by path.
        #expect(rename(swapped, plugin) == 0)
        let factory = try PluginLoader(directories: [dir], descriptorFolder: "/proc/self/fd").load(file, path: plugin)
        #expect(factory.id == "checked")
    }

    @Test("plugins loaded one after another each run their own code, though each is loaded as /proc/self/fd/N")
    func eachPluginItsOwnCode() throws {
        let tmp = TemporaryDirectory("plugin")
        let dir = tmp.folder("plugins")
        for id in ["first", "second", "third"] {
            _ = try TestPlugin.build(.init(id: id), name: "lib\(id).so", in: dir, marker: tmp.file("created"))
        }
        let scan = PluginLoader(directories: [dir]).scan()
        #expect(scan.rejected.isEmpty, "\(scan.rejected)")
        #expect(scan.factories.map(\.id) == ["first", "second", "third"])
    }

    @Test("without /proc, or with a /proc whose names lead elsewhere, a plugin is refused, never loaded by its path")
    func noProc() throws {
        let tmp = TemporaryDirectory("plugin")
        let dir = tmp.folder("plugins")
        let marker = tmp.file("created")
        let plugin = try TestPlugin.build(.init(), name: "libctest.so", in: dir, marker: marker)
        let missing = tmp.file("proc/self/fd")
        var r = try #require(PluginLoader(directories: [dir], descriptorFolder: missing).scan().onlyRejection)
        #expect(r.path == plugin)
        #expect(r.reason.hasPrefix("cannot reach the checked file as \(missing)/"), "\(r.reason)")
        #expect(r.reason.hasSuffix("mount it (`mount -t proc proc /proc`)"), "\(r.reason)")

        let fake = tmp.folder("fd")
        for n in 0..<1024 { symlink("/bin/sh", fake + "/\(n)") }
        r = try #require(PluginLoader(directories: [dir], descriptorFolder: fake).scan().onlyRejection)
        #expect(r.reason.contains("is not the checked file"), "\(r.reason)")
        #expect(!FileManager.default.fileExists(atPath: marker))
    }
}
