import Testing
import Plugins

@Suite("Sink specs and the registry")
struct SinkSpecTests {
    @Test("a spec parses into an id and ordered options")
    func parses() throws {
        let spec = try SinkSpec(parsing: "encoder:container=mkv,codec=h264,crf=23")
        #expect(spec.id == "encoder")
        #expect(spec.options.map(\.key) == ["container", "codec", "crf"])
        #expect(spec["crf"] == "23")
        #expect(try SinkSpec(parsing: "null").options.isEmpty)
        #expect(try SinkSpec(parsing: " raw: ").options.isEmpty)
    }

    @Test("escaped commas and backslashes survive, and description parses back to the same spec")
    func escapes() throws {
        let spec = try SinkSpec(parsing: #"raw:output=/tmp/a\,b\\c.y4m,chroma=444"#)
        #expect(spec["output"] == #"/tmp/a,b\c.y4m"#)
        #expect(try SinkSpec(parsing: spec.description) == spec)
        #expect(spec["output:"] == nil)
        #expect(try SinkSpec(parsing: "encoder:output=a:b=c")["output"] == "a:b=c", "only the first ':' and '=' split")
    }

    @Test("malformed specs name the sink and the option", arguments: [
        ("encoder:crf", "encoder", "crf", "expected key=value"),
        ("encoder:=5", "encoder", "=5", "empty option name"),
        ("encoder:crf=1,crf=2", "encoder", "crf", "more than once"),
        ("encoder:crf=1,,codec=h264", "encoder", "", "empty option"),
        (#"raw:output=a\x"#, "raw", "output=a", "unknown escape"),
        ("Encoder:crf=1", "Encoder", "", "lowercase"),
        ("", "", "", "empty sink spec"),
    ])
    func malformed(text: String, sink: String, option: String, reason: String) {
        let error = #expect(throws: SinkError.self) { try SinkSpec(parsing: text) }
        guard case .invalidOption(let s, let o, let r) = error else {
            Issue.record("expected invalidOption, got \(String(describing: error))")
            return
        }
        #expect(s == sink)
        #expect(o == option)
        #expect(r.contains(reason), "\(r)")
        #expect(error!.description.contains("sink '\(sink)'"))
    }

    @Test("unknown options and bad values are refused naming sink and option", arguments: [
        ("encoder:crff=23", "crff", "unknown option; known options: output, container"),
        ("encoder:crf=abc", "crf", "'abc' is not an integer in 0...63"),
        ("encoder:container=avi", "container", "'avi' is not one of mkv, mp4, webm"),
        ("encoder:codec=vp9,container=mp4", "codec", "vp9 cannot go into mp4; use container=mkv or webm, or codec=h264 or av1"),
        ("encoder:codec=ffv1,container=webm", "codec", "ffv1 cannot go into webm"),
        ("encoder:container=mp4,audio=opus", "audio", "opus audio cannot go into mp4; use audio=aac"),
        ("encoder:container=webm,codec=vp9,audio=flac", "audio", "flac audio cannot go into webm; use audio=opus"),
        ("encoder:codec=ffv1,crf=10", "crf", "lossless and takes no crf"),
        ("encoder:codec=h264,crf=60", "crf", "60 is outside 0...51 for h264"),
        ("encoder:codec=av1,pixfmt=yuv444p", "pixfmt", "libsvtav1 does not take yuv444p"),
        ("encoder:pixfmt=bgr0", "pixfmt", "or codec=ffv1 for lossless RGB"),
        ("encoder:preset=turbo", "preset", "'turbo' is not an x264 preset"),
        ("encoder:codec=vp9,preset=12", "preset", "cpu-used 0...8"),
        ("encoder:fps=0", "fps", "is not a frame rate"),
        ("encoder:fps=1/3000000000", "fps", "is not a frame rate"),
        ("encoder:fps=3000000000/3000000", "fps", "is not a frame rate"),
        ("encoder:fps=2001/2", "fps", "is not a frame rate"),
        ("encoder:audio=flac,abitrate=128", "abitrate", "flac is lossless"),
        ("frames:every=0", "every", "not an integer in 1...1000000"),
        ("frames:prefix=a/b", "prefix", "cannot contain '/'"),
        ("raw:chroma=422", "chroma", "'422' is not one of 420, 444"),
        ("null:x=1", "x", "this sink takes no options"),
    ])
    func badOptions(text: String, option: String, reason: String) throws {
        let registry = SinkRegistry.standard()
        let spec = try SinkSpec(parsing: text)
        let error = #expect(throws: SinkError.self) { _ = try registry.makeSink(spec) }
        guard case .invalidOption(let s, let o, let r) = error else {
            Issue.record("expected invalidOption, got \(String(describing: error))")
            return
        }
        #expect(s == spec.id)
        #expect(o == option)
        #expect(r.contains(reason), "\(r)")
    }

    @Test("good specs make the sink they name")
    func makesSinks() throws {
        let registry = SinkRegistry.standard()
        #expect(try registry.makeSink("encoder:container=webm,codec=av1,crf=40,preset=12") is EncoderSink)
        #expect(try registry.makeSink("encoder:codec=ffv1,pixfmt=yuv444p,audio=flac") is EncoderSink)
        #expect(try registry.makeSink("raw:chroma=444,fps=30000/1001") is RawVideoSink)
        #expect(try registry.makeSink("frames:every=10") is FramesSink)
        #expect(try registry.makeSink("null") is NullSink)
        let enc = try #require(try registry.makeSink("encoder:container=mp4,rate=vfr,keyint=2,abitrate=96") as? EncoderSink)
        #expect(enc.options.container == .mp4 && enc.options.rate == .vfr && enc.options.keyframeInterval == 2)
        #expect(enc.options.audioBitrate == 96_000)
    }

    @Test("the container follows the output's extension when not given, and is checked then")
    func containerFromExtension() throws {
        let error = #expect(throws: SinkError.self) { _ = try SinkRegistry.standard().makeSink("encoder:codec=vp9,output=/tmp/x.mp4") }
        #expect(error == .invalidOption(sink: "encoder", option: "codec",
                                        reason: "vp9 cannot go into mp4; use container=mkv or webm, or codec=h264 or av1"))
        let sink = try EncoderSink(options: { var o = EncoderSink.Options(); o.videoCodec = .vp9; return o }())
        let video = VideoFormat(pixelFormat: .bgrx, width: 64, height: 64)
        let late = #expect(throws: SinkError.self) {
            try sink.open(SinkContext(video: video, audio: nil, output: "/tmp/pwrecord-never-written.mp4", startTime: 0))
        }
        guard case .invalidOption(_, "codec", _) = late else { Issue.record("got \(String(describing: late))"); return }
        _ = try sink.close()
    }

    @Test("an unknown sink lists the known ones")
    func unknownSink() {
        let error = #expect(throws: SinkError.self) { _ = try SinkRegistry.standard().makeSink("ndi:x=1") }
        #expect(error == .unknownSink(id: "ndi", known: ["encoder", "raw", "frames", "null"]))
    }

    @Test("the policy's allowed-sinks list is enforced where sinks are created")
    func allowList() throws {
        let registry = SinkRegistry.standard(allowed: .only(["raw", "null"]))
        #expect(try registry.makeSink("raw") is RawVideoSink)
        #expect(throws: SinkError.notAllowed(id: "encoder")) { _ = try registry.makeSink("encoder:crf=23") }
        #expect(throws: SinkError.notAllowed(id: "encoder")) { _ = try registry.makeSink("encoder:crf=bad") }
        #expect(throws: SinkError.notAllowed(id: "callback")) { try registry.authorize("callback") }
        var withCallback = registry
        try withCallback.register(CallbackSink.factory { (_) throws(SinkError) in })
        #expect(throws: SinkError.notAllowed(id: "callback")) { _ = try withCallback.makeSink("callback") }
        let none = SinkRegistry.standard(allowed: .only([]))
        #expect(throws: SinkError.notAllowed(id: "null")) { _ = try none.makeSink("null") }
        #expect(SinkError.notAllowed(id: "encoder").description.contains("not allowed by the recording policy"))
    }

    @Test("a second sink with a taken id is refused")
    func duplicateRegistration() {
        var registry = SinkRegistry.standard()
        let error = #expect(throws: SinkError.self) { try registry.register(NullSink.factory) }
        guard case .unsupported("null", let reason) = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(reason.contains("already registered"))
    }

    @Test("every built-in option has a summary, and choice defaults are among the choices")
    func listing() {
        for f in SinkRegistry.standard().factories {
            #expect(!f.summary.isEmpty)
            for o in f.options {
                #expect(!o.summary.isEmpty, "\(f.id).\(o.name)")
                if let choices = o.choices, let d = o.defaultValue { #expect(choices.contains(d), "\(f.id).\(o.name)") }
            }
        }
    }
}
