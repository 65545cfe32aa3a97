import Foundation

/// Where the policy is read from, and whom system files must belong to.
///
/// The system directory and the trusted owner are only ever set by code (tests, `pwrecord policy check --root`
/// style tooling), never from an environment variable: nothing in the environment loosens the policy. The user
/// file can only tighten, so finding it through `$XDG_CONFIG_HOME` gives the environment no power to loosen.
public struct PolicyLocations: Sendable, Equatable {
    /// The system directory holding `policy.conf` and `policy.d/`. Default `/etc/pwrecord`.
    public var systemDirectory: String
    /// The per-user file that may only tighten; nil for none.
    public var userFile: String?
    /// The uid that must own the system directory, `policy.d` and every system file. Default 0 (root).
    public var trustedOwner: UInt32

    public static let defaultSystemDirectory = "/etc/pwrecord"

    public init(systemDirectory: String = PolicyLocations.defaultSystemDirectory,
                userFile: String? = PolicyLocations.defaultUserFile(),
                trustedOwner: UInt32 = 0) {
        self.systemDirectory = systemDirectory.count > 1 && systemDirectory.hasSuffix("/")
            ? String(systemDirectory.dropLast()) : systemDirectory
        self.userFile = userFile
        self.trustedOwner = trustedOwner
    }

    /// `<systemDirectory>/policy.conf`.
    public var systemFile: String { systemDirectory + "/policy.conf" }
    /// `<systemDirectory>/policy.d`.
    public var dropInDirectory: String { systemDirectory + "/policy.d" }

    /// `$XDG_CONFIG_HOME/pwrecord/policy.conf`, or `~/.config/pwrecord/policy.conf` when `XDG_CONFIG_HOME` is
    /// unset or not absolute (the XDG base directory rule); nil when no home is known.
    public static func defaultUserFile(
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> String? {
        if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") {
            return config + "/pwrecord/policy.conf"
        }
        guard let home = UserHome.path(environment: environment) else { return nil }
        return home + "/.config/pwrecord/policy.conf"
    }
}
