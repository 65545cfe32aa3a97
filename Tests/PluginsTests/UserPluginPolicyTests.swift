import Foundation
import PortalTestSupport
import Testing
@testable import PortalCapture
import Plugins

/// Under a policy's `sinks` list, the sinks it names come from root: built in, or a plugin root installed. A
/// user's own plugin (in `~/.local/lib/pwrecord/plugins`) may not take the id of one the administrator allowed.
@Suite("A user's own plugin under the policy's sinks list", .serialized)
struct UserPluginPolicyTests {
    static let nobody: uid_t = 65534

    @Test("a sink from a user's plugin is notAllowed under a list that names its id, naming the file; without a list it is made")
    func userFactoryUnderList() throws {
        let user = SinkFactory(id: "corp-upload", summary: "", origin: "/home/ann/.local/lib/pwrecord/plugins/libup.so",
                               installedByRoot: false) { _ in NullSink() }
        let listed = SinkRegistry(factories: [user], allowed: .only(["corp-upload"]))
        #expect(throws: SinkError.notAllowed(id: "corp-upload", userPlugin: user.origin)) { _ = try listed.makeSink("corp-upload") }
        let text = SinkError.notAllowed(id: "corp-upload", userPlugin: user.origin).description
        #expect(text.contains("only as installed by root") && text.contains(user.origin), "\(text)")
        #expect(throws: Never.self) { _ = try SinkRegistry(factories: [user], allowed: .all).makeSink("corp-upload") }

        let root = SinkFactory(id: "corp-upload", summary: "", origin: "/usr/lib/pwrecord/plugins/libup.so") { _ in NullSink() }
        #expect(throws: Never.self) { _ = try SinkRegistry(factories: [root], allowed: .only(["corp-upload"])).makeSink("corp-upload") }
    }

    @Test("the loader tells a plugin root owns in a folder root owns from one a user owns",
          .enabled(if: geteuid() == 0, "only root can make files of root's and of another user"))
    func loaderTellsRootFromUser() throws {
        let tmp = TemporaryDirectory("plugin")
        let rootDir = tmp.folder("root-plugins")
        _ = try TestPlugin.build(.init(id: "rootsink"), name: "librootsink.so", in: rootDir, marker: tmp.file("created"))
        let rootScan = PluginLoader(directories: [rootDir]).scan()
        #expect(rootScan.factories.map(\.id) == ["rootsink"] && rootScan.factories.allSatisfy(\.installedByRoot))

        // The same kind of plugin as another user's own: their folder and file, loaded as them.
        let userDir = tmp.folder("user-plugins")
        let plugin = try TestPlugin.build(.init(id: "usersink"), name: "libusersink.so", in: userDir, marker: tmp.file("created2"))
        #expect(chown(userDir, Self.nobody, Self.nobody) == 0 && chown(plugin, Self.nobody, Self.nobody) == 0)
        let userScan = PluginLoader(directories: [userDir], descriptorFolder: "/proc/self/fd",
                                    trust: PluginTrust(uid: Self.nobody)).scan()
        #expect(userScan.rejected.isEmpty, "\(userScan.rejected)")
        let factory = try #require(userScan.factories.first)
        #expect(factory.id == "usersink" && !factory.installedByRoot)
        let listed = SinkRegistry(factories: [factory], allowed: .only(["usersink"]))
        #expect(throws: SinkError.notAllowed(id: "usersink", userPlugin: plugin)) { _ = try listed.makeSink("usersink") }
    }

    @Test("a loader for a policy with a sinks list refuses a user's own plugin before dlopen: none of its code runs",
          .enabled(if: geteuid() == 0, "only root can make files of another user"))
    func userPluginNotLoadedUnderList() throws {
        let tmp = TemporaryDirectory("plugin")
        let userDir = tmp.folder("user-plugins")
        let marker = tmp.file("constructed")
        var variant = TestPlugin.Variant(id: "usersink")
        variant.constructorMarker = marker
        let plugin = try TestPlugin.build(variant, name: "libusersink.so", in: userDir, marker: tmp.file("created"))
        #expect(chown(userDir, Self.nobody, Self.nobody) == 0 && chown(plugin, Self.nobody, Self.nobody) == 0)
        let loader = PluginLoader(directories: [userDir], descriptorFolder: "/proc/self/fd", trust: PluginTrust(uid: Self.nobody))
        let scan = loader.rootInstalledOnly(true).scan()
        #expect(scan.factories.isEmpty)
        let r = try #require(scan.onlyRejection)
        #expect(r.path == plugin && r.reason.contains("only plugins root installed"), "\(r.reason)")
        #expect(!FileManager.default.fileExists(atPath: marker), "the plugin's constructor ran")
        // The same loader without the restriction loads it (the constructor runs then).
        #expect(loader.scan().factories.map(\.id) == ["usersink"])
        #expect(FileManager.default.fileExists(atPath: marker))
    }
}
