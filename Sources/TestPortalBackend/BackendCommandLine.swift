import PortalCapture

/// The command line of `pwrecord-test-portal`. The stream flags set the start-up stream options, which are
/// also what `org.pwrecord.TestPortal.Reset` returns to.
struct BackendCommandLine: Sendable, Equatable {
    var streamOptions = StreamOptions()
    var showHelp = false

    static let help = """
        usage: pwrecord-test-portal [--width N] [--height N] [--fps N] [--format BGRx|RGBx|BGRA|RGBA]

        The portal backend of pwrecord's headless test desktop (scripts/test-desktop starts it). It owns
        org.freedesktop.impl.portal.desktop.pwrecordtest on the session bus and implements
        org.freedesktop.impl.portal.ScreenCast (version 4), Screenshot (version 2) and Access behind the real
        xdg-desktop-portal frontend, streaming a known test picture as PipeWire nodes. It also hosts the test
        microphone `test-mic` (Audio/Source, 440 Hz sine, 48 kHz stereo), the test speaker `test-speaker`
        (Audio/Sink, the default output, playing an 880 Hz sine) and the control interface
        org.pwrecord.TestPortal at /org/pwrecord/TestPortal (see docs/test-desktop.md).

        options (defaults for streams; SetStreamOptions changes them at run time, Reset restores these):
          --width N       stream width in pixels (default 320)
          --height N      stream height in pixels (default 240)
          --fps N         frames per second (default 30)
          --format F      pixel format: BGRx, RGBx, BGRA or RGBA (default BGRx)
          -h, --help      print this text

        It runs until SIGTERM or SIGINT. Exit status: 0 after a signal, 1 when it cannot start (no bus, no
        PipeWire, the name is taken), 2 for a bad command line.
        """

    /// Parses the arguments (without the program name); `--flag value` and `--flag=value` both work.
    init(arguments: [String]) throws(BackendError) {
        var dict = DBusVardict()
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            if argument == "-h" || argument == "--help" {
                showHelp = true
                continue
            }
            var flag = argument
            var value: String?
            if let eq = argument.firstIndex(of: "="), argument.hasPrefix("--") {
                flag = String(argument[..<eq])
                value = String(argument[argument.index(after: eq)...])
            }
            guard ["--width", "--height", "--fps", "--format"].contains(flag) else {
                throw .usage("unknown argument '\(argument)'")
            }
            guard let text = value ?? rest.popFirst() else { throw .usage("\(flag) needs a value") }
            let key = String(flag.dropFirst(2))
            if key == "format" {
                dict[key] = .string(text)
            } else {
                guard let n = UInt32(text) else { throw .usage("\(flag) takes a positive whole number, not '\(text)'") }
                dict[key] = .uint32(n)
            }
        }
        do {
            streamOptions = try StreamOptions().applying(dict)
        } catch .invalidOption(let key, let reason) {
            throw .usage("--\(key): \(reason)")
        } catch {
            throw .usage(error.description)
        }
    }
}
