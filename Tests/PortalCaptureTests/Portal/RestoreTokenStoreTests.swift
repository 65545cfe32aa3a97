import Foundation
import Testing
@testable import PortalCapture

@Suite("Remembered consent (restore tokens)")
struct RestoreTokenStoreTests {
    func makeStore() -> RestoreTokenStore {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tokens-\(UUID().uuidString)/pwrecord/restore-tokens")
        return RestoreTokenStore(directory: dir)
    }

    @Test("a stored token is returned while it is younger than the consent memory")
    func freshTokenIsReturned() throws {
        let store = makeStore()
        let t0 = Date(timeIntervalSince1970: 1_000_000)
        try store.store("tok-123", for: "org.example.App", now: t0)
        #expect(store.token(for: "org.example.App", maxAge: 480, now: t0.addingTimeInterval(479)) == "tok-123")
    }

    @Test("an expired token is not sent and is forgotten")
    func expiredTokenIsDropped() throws {
        let store = makeStore()
        let t0 = Date(timeIntervalSince1970: 1_000_000)
        try store.store("tok-123", for: "app", now: t0)
        #expect(store.token(for: "app", maxAge: 480, now: t0.addingTimeInterval(481)) == nil)
        #expect(store.entry(for: "app") == nil)
    }

    @Test("tokens are private: directory 0700, file 0600")
    func tokensArePrivate() throws {
        let store = makeStore()
        try store.store("secret", for: "app")
        let dirMode = try FileManager.default.attributesOfItem(atPath: store.directory.path)[.posixPermissions] as? Int
        let fileMode = try FileManager.default.attributesOfItem(atPath: store.directory.appendingPathComponent("app").path)[.posixPermissions] as? Int
        #expect(dirMode == 0o700)
        #expect(fileMode == 0o600)
    }

    @Test("by default tokens live in $XDG_STATE_HOME/pwrecord/restore-tokens, else ~/.local/state/pwrecord/... ($HOME, else passwd)")
    func defaultLocation() {
        #expect(StateDirectory.url("restore-tokens", environment: ["XDG_STATE_HOME": "/state/home"]).path
                == "/state/home/pwrecord/restore-tokens")
        let fallback = FileManager.default.homeDirectoryForCurrentUser.path + "/.local/state/pwrecord/restore-tokens"
        #expect(StateDirectory.url("restore-tokens", environment: [:]).path == fallback)
        #expect(StateDirectory.url("restore-tokens", environment: ["XDG_STATE_HOME": "relative/state"]).path == fallback,
                "a relative XDG_STATE_HOME is ignored, as the XDG spec says")
        #expect(StateDirectory.url("restore-tokens", environment: ["HOME": "/h"]).path == "/h/.local/state/pwrecord/restore-tokens",
                "HOME is the base, as for the configuration")
        let environment = ProcessInfo.processInfo.environment
        let home = environment["HOME"].flatMap { $0.hasPrefix("/") ? $0 + "/.local/state/pwrecord/restore-tokens" : nil } ?? fallback
        let expected = environment["XDG_STATE_HOME"].flatMap { $0.hasPrefix("/") ? $0 + "/pwrecord/restore-tokens" : nil }
            ?? home
        #expect(RestoreTokenStore().directory.path == expected)
        #expect(ConsentMemory(maxAge: nil).store.directory.path == expected)
    }

    @Test("an app id cannot name a file outside the store", arguments: ["../evil", "", ".hidden", "a/b"])
    func appIDsCannotEscape(appID: String) throws {
        let store = makeStore()
        #expect(throws: RestoreTokenStore.StoreError.invalidAppID(appID)) { try store.store("tok", for: appID) }
        #expect(store.entry(for: appID) == nil)
        #expect(!FileManager.default.fileExists(atPath: store.directory.path))
    }

    @Test("a token that is empty or spans lines is refused", arguments: ["", "a\nb"])
    func malformedTokensAreRefused(token: String) {
        let store = makeStore()
        #expect(throws: RestoreTokenStore.StoreError.invalidToken) { try store.store(token, for: "app") }
    }

    @Test("a newer token replaces the older one")
    func newerTokenReplacesOlder() throws {
        let store = makeStore()
        let t0 = Date(timeIntervalSince1970: 1_000_000)
        try store.store("first", for: "app", now: t0)
        try store.store("second", for: "app", now: t0.addingTimeInterval(10))
        #expect(store.entry(for: "app") == RestoreTokenStore.Entry(token: "second", issued: t0.addingTimeInterval(10)))
    }
}

@Suite("Handle tokens")
struct HandleTokenTests {
    @Test("random tokens are valid object path elements and differ")
    func randomTokensAreValid() {
        let a = HandleToken.random(), b = HandleToken.random()
        #expect(HandleToken(a.value) != nil)
        #expect(a != b)
    }

    @Test("tokens outside [A-Za-z0-9_] are refused", arguments: ["", "a-b", "a.b", "a/b", "ä"])
    func invalidTokensAreRefused(text: String) {
        #expect(HandleToken(text) == nil)
    }
}
