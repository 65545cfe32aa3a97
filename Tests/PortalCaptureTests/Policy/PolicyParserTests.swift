import Foundation
import Testing
@testable import PortalCapture

@Suite("Policy file parsing")
struct PolicyParserTests {
    @Test("a file starting with a byte-order mark reads as without it")
    func byteOrderMarkIsIgnored() {
        let document = PolicyDocument.test("\u{FEFF}[defaults]\nrecording = deny\n")
        #expect(document.problems == [])
        #expect(document.sectionHeaders == [.defaults])
        #expect(document.sections.first?.settings.recording?.value == .deny)
    }

    @Test("the design's example file is valid and keeps its sections in order")
    func designExampleIsValid() {
        let document = PolicyDocument.test("""
            [defaults]
            recording = allow            # allow | deny
            microphone = deny
            system-audio = deny
            max-duration = 30m
            hours = 08:00-20:00          # outside: unavailable
            consent-memory = 8m          # how long a remembered consent (restore token) is honoured
            sinks = encoder, raw
            output-dirs = ~/Videos

            [group:kids]
            hours = 16:00-18:00

            [app:org.example.Game]
            recording = allow

            [user:alice]
            [exe:/usr/bin/obs]
            """)
        #expect(document.problems == [])
        #expect(document.sectionHeaders == [.defaults, .group("kids"), .app("org.example.Game"), .user("alice"),
                                            .executable("/usr/bin/obs")])
        let defaults = document.sections[0].settings
        #expect(defaults.recording?.value == .allow)
        #expect(defaults.microphone?.value == .deny)
        #expect(defaults.systemAudio?.value == .deny)
        #expect(defaults.maxDuration?.value == .limited(.seconds(1_800)))
        #expect(defaults.hours?.value.description == "08:00-20:00")
        #expect(defaults.consentMemory?.value == .limited(.seconds(480)))
        #expect(defaults.sinks?.value == ["encoder", "raw"])
        #expect(defaults.outputDirs?.value == ["~/Videos"])
        #expect(defaults.hours?.sources == [PolicySourceLine(file: "t.conf", line: 6, section: "defaults",
                                                              text: "hours = 08:00-20:00")])
    }

    @Test("recording, microphone and system-audio take allow or deny",
          arguments: [("recording", "allow", PolicyPermission.allow), ("recording", "deny", .deny),
                      ("microphone", "allow", .allow), ("microphone", "deny", .deny),
                      ("system-audio", "allow", .allow), ("system-audio", "deny", .deny)])
    func permissions(key: String, value: String, expected: PolicyPermission) {
        let document = PolicyDocument.test("[defaults]\n\(key) = \(value)")
        #expect(document.problems == [])
        let settings = document.sections[0].settings
        let parsed = switch key {
        case "recording": settings.recording
        case "microphone": settings.microphone
        default: settings.systemAudio
        }
        #expect(parsed?.value == expected)
        #expect([settings.recording, settings.microphone, settings.systemAudio].compactMap { $0 }.count == 1,
                "\(key) sets only itself")
    }

    @Test("max-duration and consent-memory take durations and unlimited",
          arguments: [("30s", PolicyLimit.limited(.seconds(30))), ("30m", .limited(.seconds(1_800))),
                      ("2h", .limited(.seconds(7_200))), ("1h30m", .limited(.seconds(5_400))),
                      ("1d12h", .limited(.seconds(129_600))), ("unlimited", .unlimited)])
    func durations(value: String, expected: PolicyLimit) {
        let document = PolicyDocument.test("[defaults]\nmax-duration = \(value)\nconsent-memory = \(value)")
        #expect(document.problems == [])
        #expect(document.sections[0].settings.maxDuration?.value == expected)
        #expect(document.sections[0].settings.consentMemory?.value == expected)
    }

    @Test("consent-memory may be 0, meaning ask every time", arguments: ["0", "0s"])
    func consentMemoryZero(value: String) {
        let document = PolicyDocument.test("[defaults]\nconsent-memory = \(value)")
        #expect(document.problems == [])
        #expect(document.sections[0].settings.consentMemory?.value == .limited(.zero))
    }

    @Test("hours take daily, several and per-weekday ranges",
          arguments: ["08:00-20:00", "08:00-12:00, 13:00-18:00", "mon-fri 08:00-18:00, sat 10:00-12:00",
                      "sat-sun 10:00-12:00 14:00-16:00", "22:00-02:00", "fri-mon 09:00-10:00", "always",
                      "00:00-24:00", "8:00-9:30"])
    func validHours(value: String) {
        let document = PolicyDocument.test("[defaults]\nhours = \(value)")
        #expect(document.problems == [])
        #expect(document.sections[0].settings.hours != nil)
    }

    @Test("sinks and output-dirs take comma-separated lists")
    func lists() {
        let document = PolicyDocument.test("""
            [defaults]
            sinks = encoder,raw , callback, my-plugin.v2
            output-dirs = ~, ~/Videos, /srv/recordings
            """)
        #expect(document.problems == [])
        #expect(document.sections[0].settings.sinks?.value == ["encoder", "raw", "callback", "my-plugin.v2"])
        #expect(document.sections[0].settings.outputDirs?.value == ["~", "~/Videos", "/srv/recordings"])
    }

    /// Each malformed input with the exact message an administrator sees.
    static let malformed: [(text: String, message: String)] = [
        ("[defaults]\nrecordng = deny",
         "t.conf:2: unknown key 'recordng'; known keys: recording, microphone, system-audio, max-duration, hours, consent-memory, sinks, output-dirs"),
        ("[defaults]\nrecording = maybe", "t.conf:2: bad value 'maybe' for 'recording': expected allow or deny"),
        ("[defaults]\nrecording = Allow", "t.conf:2: bad value 'Allow' for 'recording': expected allow or deny"),
        ("[defaults]\nmicrophone = yes", "t.conf:2: bad value 'yes' for 'microphone': expected allow or deny"),
        ("[defaults]\nsystem-audio = on", "t.conf:2: bad value 'on' for 'system-audio': expected allow or deny"),
        ("[defaults]\nsystem_audio = deny", "t.conf:2: unknown key 'system_audio'; known keys: recording, microphone, system-audio, max-duration, hours, consent-memory, sinks, output-dirs"),
        ("[defaults]\nmax-duration = 30x",
         "t.conf:2: bad duration '30x' for 'max-duration': unknown unit 'x'; use s, m, h or d (e.g. 30m, 1h30m)"),
        ("[defaults]\nmax-duration = 30",
         "t.conf:2: bad duration '30' for 'max-duration': missing unit after '30'; use s, m, h or d (e.g. 30m)"),
        ("[defaults]\nmax-duration = 1m30h",
         "t.conf:2: bad duration '1m30h' for 'max-duration': units must go from largest to smallest, each once (e.g. 1h30m)"),
        ("[defaults]\nmax-duration = 1h1h",
         "t.conf:2: bad duration '1h1h' for 'max-duration': units must go from largest to smallest, each once (e.g. 1h30m)"),
        ("[defaults]\nmax-duration = -5m",
         "t.conf:2: bad duration '-5m' for 'max-duration': expected a number, found '-'; use e.g. 30m or 1h30m"),
        ("[defaults]\nmax-duration = 1h 30m",
         "t.conf:2: bad duration '1h 30m' for 'max-duration': expected a number, found ' '; use e.g. 30m or 1h30m"),
        ("[defaults]\nmax-duration = 0",
         "t.conf:2: bad duration '0' for 'max-duration': must be longer than 0; to forbid recording write 'recording = deny'"),
        ("[defaults]\nconsent-memory = 99999999d",
         "t.conf:2: bad duration '99999999d' for 'consent-memory': too large (at most 36500d)"),
        ("[defaults]\nhours = 25:00-26:00", "t.conf:2: bad hours '25:00-26:00': time '25:00' is out of range (00:00 to 24:00)"),
        ("[defaults]\nhours = 08:60-09:00", "t.conf:2: bad hours '08:60-09:00': time '08:60' has minutes past 59"),
        ("[defaults]\nhours = 24:30-01:00", "t.conf:2: bad hours '24:30-01:00': time '24:30' is out of range (00:00 to 24:00)"),
        ("[defaults]\nhours = 24:00-02:00", "t.conf:2: bad hours '24:00-02:00': a range cannot start at 24:00; use 00:00"),
        ("[defaults]\nhours = 08:00", "t.conf:2: bad hours '08:00': expected a time range like 08:00-20:00, found '08:00'"),
        ("[defaults]\nhours = 8h-20h", "t.conf:2: bad hours '8h-20h': bad time '8h'; write times as HH:MM, e.g. 08:00"),
        ("[defaults]\nhours = 08:00-08:00", "t.conf:2: bad hours '08:00-08:00': empty range '08:00-08:00'; use 00:00-24:00 for a whole day"),
        ("[defaults]\nhours = monday 08:00-10:00",
         "t.conf:2: bad hours 'monday 08:00-10:00': unknown day 'monday'; use mon, tue, wed, thu, fri, sat, sun or a range like mon-fri"),
        ("[defaults]\nhours = mon-fri", "t.conf:2: bad hours 'mon-fri': missing time range after 'mon-fri', e.g. 'mon-fri 08:00-18:00'"),
        ("[defaults]\nhours = 08:00-10:00,", "t.conf:2: bad hours '08:00-10:00,': empty entry between commas"),
        ("[defaults]\nhours = always, 08:00-10:00", "t.conf:2: bad hours 'always, 08:00-10:00': 'always' cannot be combined with other ranges"),
        ("[defaults]\nhours = mon-fri 08:00-12:00, 13:00-18:00",
         "t.conf:2: bad hours 'mon-fri 08:00-12:00, 13:00-18:00': every range needs its days when any range names days (e.g. 'mon-fri 08:00-12:00, mon-fri 13:00-18:00')"),
        ("[defaults]\nsinks = encoder, , raw",
         "t.conf:2: bad value 'encoder, , raw' for 'sinks': expected a comma-separated list of sink ids, e.g. 'encoder, raw'"),
        ("[defaults]\nsinks = encoder, enc oder",
         "t.conf:2: bad value 'enc oder' for 'sinks': expected sink ids (letters, digits and . _ : -) separated by commas, e.g. 'encoder, raw'"),
        ("[defaults]\noutput-dirs = Videos",
         "t.conf:2: bad value 'Videos' for 'output-dirs': expected absolute directories or ~/... (not another user's ~NAME) separated by commas, e.g. '~/Videos, /srv/recordings'"),
        ("[defaults]\noutput-dirs = ~, ~other/x, /srv/../etc",
         "t.conf:2: bad value '~other/x' for 'output-dirs': expected absolute directories or ~/... (not another user's ~NAME) separated by commas, e.g. '~/Videos, /srv/recordings'"),
        ("[defaults]\nrecording =", "t.conf:2: bad value '' for 'recording': expected a value (an empty value is not allowed)"),
        ("[defaults]\nhours = 08:00-20:00\nhours = 09:00-10:00", "t.conf:3: duplicate key 'hours' in [defaults] (first set at line 2)"),
        ("recording = deny\n[defaults]",
         "t.conf:1: key 'recording' is outside any section; put it under [defaults] or another section"),
        ("# policy\n\n[defaults\nrecording = deny", "t.conf:3: bad section header '[defaults': missing closing ']'"),
        ("[defaults] recording = deny", "t.conf:1: bad section header '[defaults] recording = deny': text after ']'; put a comment after a space and '#'"),
        ("[default]", "t.conf:1: bad section header '[default]': expected [defaults], [user:NAME], [group:NAME], [app:ID] or [exe:/PATH]"),
        ("[users:alice]", "t.conf:1: bad section header '[users:alice]': expected [defaults], [user:NAME], [group:NAME], [app:ID] or [exe:/PATH]"),
        ("[group:]", "t.conf:1: bad section header '[group:]': missing name after 'group:'"),
        ("[user: alice]", "t.conf:1: bad section header '[user: alice]': names cannot contain spaces"),
        ("[exe:usr/bin/obs]", "t.conf:1: bad section header '[exe:usr/bin/obs]': the executable path must be absolute, e.g. [exe:/usr/bin/obs]"),
        ("[defaults]\n[group:kids]\n[defaults]", "t.conf:3: duplicate section [defaults] (first at line 1); merge the two"),
        ("[defaults]\nrecording deny", "t.conf:2: expected 'key = value' or a [section] header, found 'recording deny'"),
        ("[defaults]\n= deny", "t.conf:2: expected 'key = value' or a [section] header, found '= deny'"),
    ]

    @Test("each malformed input gives its exact file:line message", arguments: malformed)
    func malformedInput(text: String, message: String) {
        let document = PolicyDocument.test(text)
        #expect(document.problems.map(\.description) == [message])
        #expect(!document.isValid)
    }

    @Test("every problem of a file is reported, not just the first")
    func allProblemsReported() {
        let document = PolicyDocument.test("""
            [defaults]
            recording = maybe
            colour = red
            [group:kids]
            hours = 18:00
            """)
        #expect(document.problems.map { ($0.description.split(separator: ":").prefix(2)).joined(separator: ":") }
                == ["t.conf:2", "t.conf:3", "t.conf:5"])
    }

    @Test("keys under a bad or duplicate header are still checked but not kept")
    func keysUnderBadHeaderAreChecked() {
        let document = PolicyDocument.test("[nonsense]\nrecording = maybe\n[defaults]\n[defaults]\nrecording = deny")
        #expect(document.problems.count == 3)
        #expect(document.problems[1] == .badValue(file: "t.conf", line: 2, key: "recording", value: "maybe",
                                                  expected: "allow or deny"))
        #expect(document.sections.count == 1)
        #expect(document.sections[0].settings.recording == nil)
    }

    @Test("comments start a line or follow whitespace; a # inside a value is kept; CRLF is accepted")
    func commentsAndLineEndings() throws {
        let document = PolicyDocument.test("# header comment\r\n  # indented\r\n[defaults] # section comment\r\n"
            + "output-dirs = /srv/a#b   # trailing comment\r\nsinks = raw\r\n")
        #expect(document.problems == [])
        let settings = try #require(document.sections.first).settings
        #expect(settings.outputDirs?.value == ["/srv/a#b"])
        #expect(settings.sinks?.value == ["raw"])
        #expect(settings.outputDirs?.sources.first == PolicySourceLine(file: "t.conf", line: 4, section: "defaults",
                                                                        text: "output-dirs = /srv/a#b"))
    }

    @Test("lines are counted as editors and grep -n count them: a form feed or U+2028 is no line break")
    func linesCountedAsEditorsDo() throws {
        let formFeed = PolicyDocument.test("[defaults]\n\u{0C}\nrecording = maybe\n")
        #expect(formFeed.problems == [.badValue(file: "t.conf", line: 3, key: "recording", value: "maybe",
                                                expected: "allow or deny")])
        let separator = PolicyDocument.test("[defaults]\n# comment\u{2028}recording = deny\u{0B}\nsinks = raw\n")
        #expect(separator.problems == [])
        let settings = try #require(separator.sections.first).settings
        #expect(settings.recording == nil)
        #expect(settings.sinks?.sources.first?.line == 3)
    }

    @Test("an empty file and a file of comments are valid and say nothing")
    func emptyFile() {
        for text in ["", "\n\n", "# nothing here\n"] {
            let document = PolicyDocument.test(text)
            #expect(document.problems == [])
            #expect(document.sections.isEmpty)
        }
    }
}
