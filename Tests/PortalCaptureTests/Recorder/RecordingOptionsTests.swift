import Foundation
import Testing
@testable import PortalCapture

@Suite("Recording options are checked before anything happens")
struct RecordingOptionsTests {
    @Test("a duration must be positive and at most a week", arguments: [0, -1, .infinity, .nan, 604_801, 1e20])
    func badDurations(seconds: Double) {
        #expect(throws: RecordingError.self) { try RecordingOptions().maxDuration(seconds).validate() }
    }

    @Test("a week, and anything shorter, is a valid duration", arguments: [0.5, 3600, 604_800])
    func goodDurations(seconds: Double) throws {
        try RecordingOptions().maxDuration(seconds).validate()
    }

    @Test("a crop smaller than 2x2 pixels is refused: no encoder can take it")
    func tinyCrop() throws {
        #expect(throws: RecordingError.invalidParameter("crop 0,0,1,1 is too small to encode (at least 2x2 pixels)")) {
            try RecordingOptions().crop(PixelRect(x: 0, y: 0, width: 1, height: 1)).validate()
        }
        #expect(throws: RecordingError.self) { try RecordingOptions().crop(PixelRect(x: 0, y: 0, width: 100, height: 1)).validate() }
        try RecordingOptions().crop(PixelRect(x: 0, y: 0, width: 2, height: 2)).validate()
    }

    @Test("system audio is off by default, and set fluently like the microphone, with an optional sink name")
    func systemAudioIsFluent() throws {
        #expect(!RecordingOptions().systemAudio)
        let options = RecordingOptions().microphone(true).systemAudio(true)
        #expect(options.microphone && options.systemAudio && options.systemAudioNode == nil)
        #expect(RecordingOptions().systemAudio(true, node: "alsa_output.pci").systemAudioNode == "alsa_output.pci")
        #expect(!options.systemAudio(false).systemAudio)
        try options.validate()
    }
}
