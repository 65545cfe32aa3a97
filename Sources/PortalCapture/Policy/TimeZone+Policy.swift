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
