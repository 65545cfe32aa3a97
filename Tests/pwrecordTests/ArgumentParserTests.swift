import Testing
@testable import pwrecord

@Suite("Command-line parsing")
struct ArgumentParserTests {
    let parser = ArgumentParser(root: PwrecordCommands.root)

    @Test("record takes long, short and inline option values")
    func recordTakesValues() throws {
        let p = try parser.parse(["record", "-o", "x.mkv", "--duration=3", "--mic", "--fps", "60"])
        #expect(p.path == ["pwrecord", "record"])
        #expect(p.value("output") == "x.mkv")
        #expect(p.value("duration") == "3")
        #expect(p.value("fps") == "60")
        #expect(p.flag("mic"))
    }

    @Test("repeatable options keep every value in order")
    func repeatableOptionsKeepValues() throws {
        let p = try parser.parse(["record", "--mask", "0,0,10,10", "--mask", "5,5,1,1"])
        #expect(p.all("mask") == ["0,0,10,10", "5,5,1,1"])
    }

    @Test("an unknown flag is a usage error naming the flag", arguments: [
        (["record", "--bogus"], "unknown option '--bogus'"),
        (["record", "-q"], "unknown option '-q'"),
        (["record", "--fps"], "option '--fps' needs a value"),
        (["record", "-o", "--mic"], "option '-o' needs a value"),
        (["record", "-otalk.mkv"], "option '-o' takes its value as the next argument: write '-o talk.mkv' or '--output=talk.mkv'"),
        (["record", "-o", "-talk.mkv"], "option '-o' needs a value, and '-talk.mkv' reads as an option; to give it as the value write '--output=-talk.mkv'"),
        (["record", "--mic=yes"], "option '--mic' takes no value"),
        (["record", "-o", "a", "-o", "b"], "option '-o' given more than once"),
        (["frobnicate"], "unknown command 'frobnicate'"),
        (["last", "save"], "missing argument <dest>"),
        (["status", "extra"], "unexpected argument 'extra'"),
    ])
    func usageErrorsNameWhatIsWrong(arguments: [String], message: String) {
        #expect {
            _ = try parser.parse(arguments)
        } throws: { error in
            (error as? CommandLineError)?.description == message
        }
    }

    @Test("the hint points at the help of the command that failed")
    func hintNamesCommandHelp() {
        do {
            _ = try parser.parse(["policy", "explain", "--nope"])
            Issue.record("expected an error")
        } catch {
            #expect(error.hint == "see 'pwrecord policy explain --help'")
        }
    }

    @Test("--help anywhere asks for help of the command reached so far")
    func helpAnywhere() throws {
        let p = try parser.parse(["last", "save", "--help"])
        #expect(p.helpRequested)
        #expect(p.path == ["pwrecord", "last", "save"])
        let text = HelpFormatter().help(for: parser.spec(at: p.path), path: p.path)
        #expect(text.contains("USAGE: pwrecord last save [<options>] <dest>"))
    }

    @Test("help shows every option's default")
    func helpShowsDefaults() {
        let text = HelpFormatter().help(for: PwrecordCommands.record, path: ["pwrecord", "record"])
        #expect(text.contains("--codec <codec>"))
        #expect(text.contains("(default: h264)"))
        #expect(text.contains("(default: mkv)"))
    }

    @Test("a value after -- is positional even when it starts with a dash")
    func doubleDashEndsOptions() throws {
        let p = try parser.parse(["last", "save", "--", "-weird.mkv"])
        #expect(p.positionals == ["-weird.mkv"])
    }
}

@Suite("Option values")
struct ValueParserTests {
    @Test("durations accept seconds and unit forms", arguments: [
        ("5", 5.0), ("2.5", 2.5), ("90s", 90), ("2m", 120), ("1h30m", 5400), ("1m30s", 90), ("1h0.5m", 3630),
        ("168h", 604_800), (".5", 0.5),
    ])
    func durationsParse(text: String, seconds: Double) throws {
        #expect(try ValueParsers.duration(text) == seconds)
    }

    @Test("bad durations say what was expected", arguments: ["", "abc", "5x", "m", "0", "-3", "1h30", "+5", "0x10",
                                                             "1e3", "inf", "nan", "1h1h", "30m1h", "1..5", ".", "5 s"])
    func badDurations(text: String) {
        #expect(throws: ValueError.self) { try ValueParsers.duration(text) }
    }

    @Test("durations longer than a week are refused, however they are written (they used to crash the recorder)",
          arguments: ["9999999999999999", "99999999999999999999h", "168h1s", "604801"])
    func hugeDurations(text: String) {
        #expect(throws: ValueError("must be at most a week (168h)")) { try ValueParsers.duration(text) }
    }

    @Test("rectangles need four numbers and a positive size")
    func rectangles() throws {
        let r = try ValueParsers.rect("10,20,300,200")
        #expect(r.x == 10 && r.y == 20 && r.width == 300 && r.height == 200)
        #expect(throws: ValueError("W and H must be greater than 0")) { try ValueParsers.rect("0,0,0,5") }
        #expect(throws: ValueError("expected X,Y,W,H in pixels, e.g. 0,0,640,480")) { try ValueParsers.rect("1,2,3") }
    }

    @Test("typed values name the option when they fail")
    func typedValueErrorNamesOption() throws {
        let p = try ArgumentParser(root: PwrecordCommands.root).parse(["record", "--fps", "many"])
        #expect(throws: CommandLineError(reason: .invalidValue(option: "--fps", value: "many", reason: "expected a whole number"),
                                         commandPath: ["pwrecord", "record"])) {
            _ = try p.value("fps") { s throws(ValueError) in try ValueParsers.integer(s, in: 1...240) }
        }
    }
}
