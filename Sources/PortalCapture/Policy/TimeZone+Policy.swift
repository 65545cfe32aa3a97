import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension TimeZone {
    /// The machine's time zone, for reading policy `hours`: the target of the `/etc/localtime` symlink
    /// (`.../zoneinfo/Europe/Berlin`), else the name in `/etc/timezone`, else UTC.
    ///
    /// Deliberately not `TimeZone.current`, which follows the `TZ` environment variable: a user could otherwise
    /// move the allowed hours by setting `TZ`. Only the administrator can change these files.
    public static var policySystem: TimeZone { policySystem(localtime: "/etc/localtime", timezoneFile: "/etc/timezone") }

    /// The environment variables set (non-empty) that make ICU, which Foundation's `TimeZone` reads its rules
    /// from, load time-zone rules from a folder the user chooses: `ICU_TIMEZONE_FILES_DIR` (a
    /// `zoneinfo64.res` there replaces the built-in rules) and `ICU_DATA` (ICU looks for data files there
    /// before its own). With either set, a user could give the machine's zone any offset and move the
    /// allowed `hours`, so the policy does not read hours at all (it fails closed).
    static func policyRuleOverrides(environment: [String: String]) -> [String] {
        ["ICU_TIMEZONE_FILES_DIR", "ICU_DATA"].filter { !(environment[$0] ?? "").isEmpty }
    }

    static func policySystem(localtime: String, timezoneFile: String) -> TimeZone {
        var buffer = [CChar](repeating: 0, count: 4_096)
        let length = readlink(localtime, &buffer, buffer.count - 1)
        if length > 0 {
            let target = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if let range = target.range(of: "zoneinfo/"), let zone = TimeZone(identifier: String(target[range.upperBound...])) {
                return zone
            }
        }
        if let text = try? String(contentsOfFile: timezoneFile, encoding: .utf8),
           let zone = TimeZone(identifier: text.trimmingCharacters(in: .whitespacesAndNewlines)) {
            return zone
        }
        return TimeZone(identifier: "UTC")!
    }
}
