import Testing
@testable import Plugins

@Suite("Where the audio encoder's priming goes")
struct AudioPrimingTests {
    static let ffmpeg51 = AudioPriming.version(59, 27, 100)
    static let ffmpeg60 = AudioPriming.version(60, 3, 100)

    @Test("MP4 keeps the priming before 0 for its edit list: nothing is moved")
    func mp4() {
        #expect(AudioPriming(container: .mp4, codec: .aac, padding: 1024, sampleRate: 48_000, libavformat: Self.ffmpeg51)
                == AudioPriming())
    }

    @Test("Opus blocks in Matroska carry their CodecDelay where FFmpeg 5.1 does not add it", arguments: [
        EncoderSink.Options.Container.mkv, .webm])
    func opusInMatroska(container: EncoderSink.Options.Container) {
        #expect(AudioPriming(container: container, codec: .opus, padding: 312, sampleRate: 48_000, libavformat: Self.ffmpeg51)
                == AudioPriming(audioOffset: 312))
        #expect(AudioPriming(container: container, codec: .opus, padding: 156, sampleRate: 24_000, libavformat: Self.ffmpeg51)
                == AudioPriming(audioOffset: 78), "CodecDelay is written as 156 samples at 48 kHz: 78 at 24 kHz")
        #expect(AudioPriming(container: container, codec: .opus, padding: 312, sampleRate: 48_000, libavformat: Self.ffmpeg60)
                == AudioPriming(), "later muxers add it themselves")
    }

    @Test("AAC in Matroska, which has no CodecDelay in FFmpeg 5.1, starts both tracks after the priming")
    func aacInMatroska() {
        #expect(AudioPriming(container: .mkv, codec: .aac, padding: 1024, sampleRate: 48_000, libavformat: Self.ffmpeg51)
                == AudioPriming(audioOffset: 1024, videoOffset: 1024))
    }

    @Test("an encoder without priming moves nothing")
    func noPriming() {
        #expect(AudioPriming(container: .mkv, codec: .flac, padding: 0, sampleRate: 48_000, libavformat: Self.ffmpeg51)
                == AudioPriming())
    }
}
