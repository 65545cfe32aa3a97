/// The `pwrecord` command tree: every command, option, default and help text in one place.
enum PwrecordCommands {
    static let version = "0.1.0"

    /// The words enumerated options take; commands validate against these and completion offers them.
    static let sourceKinds = ["monitor", "window"]
    static let cursorModes = ["hidden", "embedded", "metadata"]
    static let codecs = ["h264", "vp9", "av1", "ffv1"]
    static let containers = ["mkv", "mp4", "webm"]
    static let shells = ["bash"]

    static let record = CommandSpec(
        name: "record",
        abstract: "Record the screen through the desktop's screen-cast portal.",
        discussion: """
            Asks for consent through the portal's dialog (a remembered choice is reused while the policy's \
            consent-memory allows), then records until --duration elapses or Ctrl-C / SIGTERM. \
            SIGUSR1 pauses and SIGUSR2 resumes. Without -o the recording is kept: save or discard it with \
            'pwrecord last'.
            """,
        options: [
            .value("output", short: "o", valueName: "file",
                   help: "Write the recording to this file (its extension picks the container).", domain: .file),
            .flag("force", help: "Overwrite the -o file when it exists."),
            .value("duration", valueName: "time", help: "Stop after this long, e.g. 5, 90s, 2m, 1h30m."),
            .flag("mic", help: "Record the microphone too."),
            .flag("system-audio", help: "Record what the desktop plays too (mixed with --mic into one track)."),
            .value("source", valueName: "kind", help: "What to record: monitor or window.", default: "monitor",
                   domain: .oneOf(sourceKinds)),
            .value("cursor", valueName: "mode", help: "Cursor: hidden, embedded or metadata.", default: "embedded",
                   domain: .oneOf(cursorModes)),
            .value("fps", valueName: "n", help: "Frame rate cap.", default: "30"),
            .flag("cfr", help: "Constant frame rate: duplicate or drop frames to --fps."),
            .flag("vfr", help: "Variable frame rate: keep PipeWire's timestamps (the default)."),
            .value("codec", valueName: "codec", help: "Video codec: h264, vp9, av1 or ffv1 (vp9 in webm).", default: "h264",
                   domain: .oneOf(codecs)),
            .value("container", valueName: "kind", help: "Container: mkv, mp4 or webm.", default: "mkv",
                   domain: .oneOf(containers)),
            .value("crop", valueName: "x,y,w,h", help: "Record only this region of the source."),
            .value("mask", valueName: "x,y,w,h", help: "Black out this region.", repeatable: true),
            .value("sink", valueName: "id[:opts]", help: "Send samples to this sink too (see 'pwrecord sinks').", repeatable: true),
            .value("app-id", valueName: "id", help: "Record on behalf of this app id.", default: "pwrecord"),
        ])

    /// `--app-id` of `last` and its subcommands: whose kept recording.
    static let lastAppID = OptionSpec.value("app-id", valueName: "id", help: "The kept recording of this app id.", default: "pwrecord")

    static let last = CommandSpec(
        name: "last",
        abstract: "Show, save, discard or open the kept recording.",
        // Alone, `last` is `last info`, --json included.
        options: [.flag("json", help: "Print JSON (as 'last info --json')."), lastAppID],
        subcommands: [
            CommandSpec(name: "info", abstract: "Show the kept recording's duration, size and streams.",
                        options: [.flag("json", help: "Print JSON."), lastAppID]),
            CommandSpec(name: "save", abstract: "Save the kept recording to a file.",
                        options: [.flag("force", help: "Overwrite an existing file."), lastAppID],
                        positionals: [PositionalSpec(name: "dest", help: "Where to save it.", optional: false, domain: .file)]),
            CommandSpec(name: "discard", abstract: "Delete the kept recording.", options: [lastAppID]),
            CommandSpec(name: "open", abstract: "Open the kept recording with the default player.", options: [lastAppID]),
        ])

    static let screenshot = CommandSpec(
        name: "screenshot",
        abstract: "Take a screenshot through the portal, or a long scrolling one.",
        options: [
            .value("output", short: "o", valueName: "file", help: "Write a .png or .pdf file.", default: "screenshot.png",
                   domain: .file),
            .flag("force", help: "Overwrite the -o file when it exists."),
            .flag("window", help: "Capture one window."),
            .flag("long", help: "Capture scrolling content while you scroll, stitched into one tall image."),
            .flag("interactive", help: "Let the portal show its own screenshot dialog."),
            .value("idle-stop", valueName: "time", help: "--long: stop after scrolling has stopped this long.", default: "3s"),
            .value("max-height", valueName: "px", help: "--long: stop at this height.", default: "60000"),
        ])

    static let status = CommandSpec(
        name: "status",
        abstract: "Tell whether recording is available now, and every reason.",
        options: [.flag("json", help: "Print JSON."), .value("app-id", valueName: "id", help: "App id to check.", default: "pwrecord")])

    static let policy = CommandSpec(
        name: "policy",
        abstract: "Check or explain the recording policy.",
        subcommands: [
            CommandSpec(name: "check", abstract: "Validate a policy file (default: the system policy and your own policy file).",
                        positionals: [PositionalSpec(name: "file", help: "The file to check.", optional: true, domain: .file)]),
            CommandSpec(name: "explain", abstract: "Print the decision for a user, app and time, with the lines that made it.",
                        options: [
                            .value("user", valueName: "name", help: "User name (default: you)."),
                            .value("app", valueName: "id", help: "App id.", default: "pwrecord"),
                            .value("exe", valueName: "path", help: "Executable, for [exe:PATH] sections (default: pwrecord's own)."),
                            .value("at", valueName: "time", help: "Time as HH:MM or YYYY-MM-DDTHH:MM (default: now)."),
                        ]),
        ])

    static let sinks = CommandSpec(name: "sinks", abstract: "List built-in and plugin sinks with their options.")

    static let completion = CommandSpec(
        name: "completion",
        abstract: "Print the shell completion script.",
        discussion: "Load it with: source <(pwrecord completion bash)",
        positionals: [PositionalSpec(name: "shell", help: "The shell: bash.", optional: false, domain: .oneOf(shells))])

    static let root = CommandSpec(
        name: "pwrecord",
        abstract: "Record and capture the screen on Wayland desktops through the portal and PipeWire.",
        subcommands: [record, last, screenshot, status, policy, sinks, completion])
}
