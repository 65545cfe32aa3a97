import Foundation
import Testing
@testable import PortalCapture

@Suite("Policy hours and durations")
struct PolicyHoursTests {
    typealias T = PolicyTestTime

    static func hours(_ text: String) -> PolicyHours { try! PolicyHours.parse(text).get() }

    // 2025-03-24 is a Monday.
    @Test("a daily window contains the times inside it and not those outside",
          arguments: [("2025-03-24 07:59:59", false), ("2025-03-24 08:00", true), ("2025-03-24 12:00", true),
                      ("2025-03-24 19:59:59", true), ("2025-03-24 20:00", false), ("2025-03-30 09:00", true)])
    func dailyWindow(time: String, inside: Bool) {
        #expect(Self.hours("08:00-20:00").contains(T.date(time), in: T.utc) == inside)
    }

    @Test("per-weekday windows apply on their days only",
          arguments: [("2025-03-24 09:00", true),   // Mon
                      ("2025-03-28 17:59", true),   // Fri
                      ("2025-03-28 18:00", false),  // Fri, end
                      ("2025-03-29 09:00", false),  // Sat, before 10
                      ("2025-03-29 11:00", true),   // Sat
                      ("2025-03-30 11:00", false)]) // Sun
    func weekdayWindow(time: String, inside: Bool) {
        #expect(Self.hours("mon-fri 08:00-18:00, sat 10:00-12:00").contains(T.date(time), in: T.utc) == inside)
    }

    @Test("a range crossing midnight runs into the next day",
          arguments: [("22:00-02:00", "2025-03-24 23:00", true), ("22:00-02:00", "2025-03-25 01:59", true),
                      ("22:00-02:00", "2025-03-25 02:00", false), ("22:00-02:00", "2025-03-24 21:59", false),
                      ("fri 22:00-02:00", "2025-03-29 01:00", true),   // Saturday morning belongs to Friday's night
                      ("fri 22:00-02:00", "2025-03-28 01:00", false),  // Friday morning does not
                      ("sun 22:00-02:00", "2025-03-31 01:00", true),   // Sunday night wraps into Monday
                      ("fri-mon 09:00-10:00", "2025-03-30 09:30", true), ("fri-mon 09:00-10:00", "2025-03-25 09:30", false)])
    func midnightCrossing(window: String, time: String, inside: Bool) {
        #expect(Self.hours(window).contains(T.date(time), in: T.utc) == inside)
    }

    @Test("the window is read in the given time zone")
    func timeZoneMatters() {
        let window = Self.hours("08:00-20:00")
        let date = T.date("2025-03-24 07:30")  // 07:30 UTC is 08:30 in Berlin (CET, +1)
        #expect(!window.contains(date, in: T.utc))
        #expect(window.contains(date, in: T.berlin))
    }

    @Test("the next boundary is the next time inside changes",
          arguments: [("08:00-20:00", "2025-03-24 10:00", "2025-03-24 20:00"),
                      ("08:00-20:00", "2025-03-24 21:00", "2025-03-25 08:00"),
                      ("08:00-20:00", "2025-03-24 20:00", "2025-03-25 08:00"),   // exactly at a boundary: the next one
                      ("08:00-20:00", "2025-03-24 07:59:30", "2025-03-24 08:00"),
                      ("mon-fri 08:00-18:00", "2025-03-28 19:00", "2025-03-31 08:00"),
                      ("22:00-02:00", "2025-03-24 23:00", "2025-03-25 02:00"),
                      ("sun 22:00-02:00", "2025-03-30 23:00", "2025-03-31 02:00"),
                      ("08:00-12:00, 12:00-14:00", "2025-03-24 10:00", "2025-03-24 14:00")])  // touching ranges join
    func nextBoundary(window: String, now: String, expected: String) {
        #expect(Self.hours(window).nextBoundary(after: T.date(now), in: T.utc) == T.date(expected))
    }

    @Test("a window inside the hour the clocks skip changes nothing that day: the next change is the day after")
    func windowInsideTheGap() {
        let window = Self.hours("02:00-03:00")
        // 2026-03-29: Berlin's clocks go from 02:00 straight to 03:00.
        #expect(window.nextBoundary(after: T.date("2026-03-28 12:00", T.berlin), in: T.berlin) == T.date("2026-03-30 02:00", T.berlin))
        #expect(window.nextBoundary(after: T.date("2026-03-30 02:30", T.berlin), in: T.berlin) == T.date("2026-03-30 03:00", T.berlin))
        // A window only partly in the gap still opens on that day.
        let partly = Self.hours("01:00-02:30").nextBoundary(after: T.date("2026-03-28 12:00", T.berlin), in: T.berlin)
        #expect(partly == T.date("2026-03-29 01:00", T.berlin))
        // ...and closes when the clocks jump past 02:30, at 03:00 summer time (01:00 UTC).
        let closes = Self.hours("01:00-02:30").nextBoundary(after: T.date("2026-03-29 01:30", T.berlin), in: T.berlin)
        #expect(closes == T.date("2026-03-29 01:00", T.utc))
    }

    @Test("the next boundary follows wall-clock time across a daylight saving change")
    func nextBoundaryAcrossDST() {
        // Berlin moves to summer time on Sunday 2025-03-30 at 02:00. Saturday 21:00 CET -> Sunday 08:00 CEST (06:00 UTC).
        let next = Self.hours("08:00-20:00").nextBoundary(after: T.date("2025-03-29 21:00", T.berlin), in: T.berlin)
        #expect(next == T.date("2025-03-30 06:00", T.utc))
    }

    @Test("in the hour the clocks repeat, a window closes or opens at the moment they go back")
    func windowAcrossTheFold() {
        // 2026-10-25: Berlin's clocks go from 03:00 summer time back to 02:00 winter time (01:00 UTC).
        // At 02:45 summer time (00:45 UTC) 02:30-04:00 is open; at 01:00 UTC the wall clock reads 02:00: closed.
        let closes = Self.hours("02:30-04:00").nextBoundary(after: T.date("2026-10-25 00:45", T.utc), in: T.berlin)
        #expect(closes == T.date("2026-10-25 01:00", T.utc))
        // 00:00-02:30 is closed at 02:45 summer time and open again from 02:00 winter time, at 01:00 UTC.
        let opens = Self.hours("00:00-02:30").nextBoundary(after: T.date("2026-10-25 00:45", T.utc), in: T.berlin)
        #expect(opens == T.date("2026-10-25 01:00", T.utc))
    }

    @Test("always and never have no boundaries")
    func noBoundaries() {
        #expect(PolicyHours.always.nextBoundary(after: T.date("2025-03-24 10:00"), in: T.utc) == nil)
        #expect(PolicyHours.never.nextBoundary(after: T.date("2025-03-24 10:00"), in: T.utc) == nil)
        #expect(Self.hours("00:00-24:00") == .always)
        #expect(Self.hours("mon-sun 00:00-24:00") == .always)
    }

    @Test("windows intersect to the minutes they share")
    func intersection() {
        #expect(Self.hours("08:00-20:00").intersection(Self.hours("16:00-22:00")) == Self.hours("16:00-20:00"))
        #expect(Self.hours("mon-fri 08:00-20:00").intersection(Self.hours("sat-sun 08:00-20:00")) == .never)
        #expect(Self.hours("22:00-02:00").intersection(Self.hours("01:00-03:00")) == Self.hours("01:00-02:00"))
    }

    @Test("the canonical text reads back as the same hours",
          arguments: [("08:00-20:00", "08:00-20:00"), ("13:00-18:00, 08:00-12:00", "08:00-12:00, 13:00-18:00"),
                      ("mon-fri 08:00-18:00, sat 10:00-12:00", "mon-fri 08:00-18:00, sat 10:00-12:00"),
                      ("22:00-02:00", "22:00-02:00"), ("always", "always"), ("00:00-24:00", "always"),
                      ("fri 22:00-02:00", "fri 22:00-24:00, sat 00:00-02:00"),
                      ("sat-sun 10:00-12:00 14:00-16:00", "sat-sun 10:00-12:00 14:00-16:00")])
    func canonicalText(input: String, canonical: String) {
        let parsed = Self.hours(input)
        #expect(parsed.description == canonical)
        #expect(Self.hours(parsed.description) == parsed)
    }

    @Test("durations read as their seconds",
          arguments: [("30s", 30), ("30m", 1_800), ("2h", 7_200), ("1h30m", 5_400), ("1d", 86_400),
                      ("1d2h3m4s", 93_784), ("0", 0), ("0s", 0), ("90m", 5_400)] as [(String, Int64)])
    func durations(text: String, seconds: Int64) throws {
        #expect(try Duration.parsePolicy(text).get() == .seconds(seconds))
    }

    @Test("durations print in policy notation", arguments: [(5_400, "1h30m"), (30, "30s"), (0, "0s"), (93_784, "1d2h3m4s")]
          as [(Int64, String)])
    func durationText(seconds: Int64, text: String) {
        #expect(Duration.seconds(seconds).policyDescription == text)
    }
}
