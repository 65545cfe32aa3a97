import Foundation

/// Durations as a person writes them: "1.5 s", "45 s", "1h30m", "2m5s" (the forms `--idle-stop` and
/// `--duration` accept), not "5400.0 s".
enum DurationText {
    static func seconds(_ value: Double) -> String {
        if value < 60 {
            return value == value.rounded() ? "\(Int(value)) s" : String(format: "%.1f s", value)
        }
        let total = Int(value.rounded())
        let (h, m, s) = (total / 3600, total % 3600 / 60, total % 60)
        return (h > 0 ? "\(h)h" : "") + (m > 0 ? "\(m)m" : "") + (s > 0 ? "\(s)s" : "")
    }
}
