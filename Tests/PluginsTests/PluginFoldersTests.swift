import Foundation
import Testing
@testable import PortalCapture

/// The user's plugin folder is found in the user's home as pwrecord's other files find it: `$HOME` when it is
/// absolute, else the passwd database's home.
@Suite("The user's plugin folder")
struct PluginFoldersTests {
    static let system = ["/usr/lib/pwrecord/plugins", "/usr/local/lib/pwrecord/plugins"]

    @Test("an absolute HOME names the user's folder")
    func absoluteHome() {
        #expect(PluginLoader.defaultDirectories(home: nil, environment: ["HOME": "/home/ann"], passwdHome: { "/home/bob" })
                == Self.system + ["/home/ann/.local/lib/pwrecord/plugins"])
    }

    @Test("a relative, empty or missing HOME is not used: the passwd home is", arguments: [["HOME": "ann"], ["HOME": ""], [:]])
    func homeFromPasswd(environment: [String: String]) {
        #expect(PluginLoader.defaultDirectories(home: nil, environment: environment, passwdHome: { "/home/bob" })
                == Self.system + ["/home/bob/.local/lib/pwrecord/plugins"])
    }

    @Test("without a usable HOME or passwd home only the system folders are searched")
    func noHome() {
        #expect(PluginLoader.defaultDirectories(home: nil, environment: ["HOME": "ann"], passwdHome: { nil }) == Self.system)
        #expect(PluginLoader.defaultDirectories(home: nil, environment: [:], passwdHome: { "relative" }) == Self.system)
    }

    @Test("the passwd database's home is the effective user's, as the state folder's is")
    func realPasswdHome() throws {
        let entry = try #require(getpwuid(geteuid()))
        let home = String(cString: entry.pointee.pw_dir)
        #expect(PluginLoader.defaultDirectories(home: nil, environment: ["HOME": "relative"]).last == home + "/.local/lib/pwrecord/plugins")
        #expect(StateDirectory.url("x", environment: ["HOME": "relative"]).path == home + "/.local/state/pwrecord/x")
    }
}
