import CPipeWire
import Testing
@testable import PortalCapture
import PortalTestSupport

@Suite("PipeWire formats and params")
struct PipeWireParamsTests {
    @Test("each pixel format maps to its spa_video_format and back", arguments: PixelFormat.allCases)
    func pixelFormatRoundTrips(format: PixelFormat) {
        #expect(PixelFormat(spaVideoFormat: format.spaVideoFormat) == format)
        #expect(PixelFormat.spaName(format.spaVideoFormat) == format.rawValue)
    }

    @Test("formats outside the four map to nothing")
    func otherFormatsMapToNothing() {
        for other in [SPA_VIDEO_FORMAT_NV12, SPA_VIDEO_FORMAT_I420, SPA_VIDEO_FORMAT_RGB, SPA_VIDEO_FORMAT_ARGB,
                      SPA_VIDEO_FORMAT_UNKNOWN] {
            #expect(PixelFormat(spaVideoFormat: other.rawValue) == nil)
        }
        #expect(Set(PixelFormat.allCases.map(\.spaVideoFormat)).count == PixelFormat.allCases.count)
    }

    @Test("the consumer's EnumFormat offers every format and the ranges, and fixates to the preferred ones")
    func enumFormatParsesBack() throws {
        let formats: [PixelFormat] = [.rgba, .bgrx, .rgbx, .bgra]
        try withFirstPod({ b in
            VideoParams.enumFormat(into: b, formats: formats, preferredSize: (1280, 720), minSize: (1, 1),
                                   maxSize: (4096, 2160), preferredRate: FrameRate(30), maxRate: FrameRate(240))
        }) { pod in
            // What the graph does with the defaults: fixate a copy (every choice becomes its default), parse it.
            withFixatedCopy(of: pod) { fixated, fixateResult in
                #expect(fixateResult >= 0)
                var info = spa_video_info_raw()
                #expect(spa_format_video_raw_parse(fixated, &info) >= 0)
                #expect(info.format == SPA_VIDEO_FORMAT_RGBA)
                #expect(info.size.width == 1280 && info.size.height == 720)
                #expect(info.framerate.num == 30 && info.framerate.denom == 1)
            }
            var mediaType: UInt32 = 0, mediaSubtype: UInt32 = 0
            #expect(spa_format_parse(pod, &mediaType, &mediaSubtype) >= 0)
            #expect(mediaType == SPA_MEDIA_TYPE_video.rawValue && mediaSubtype == SPA_MEDIA_SUBTYPE_raw.rawValue)
            #expect(pod.pointee.type == UInt32(SPA_TYPE_Object))

            let offered = try #require(propertyValues(pod, key: SPA_FORMAT_VIDEO_format.rawValue))
            #expect(offered.choice == SPA_CHOICE_Enum.rawValue)
            #expect(offered.values.map { $0[0] } == ([formats[0]] + formats).map(\.spaVideoFormat))
            let sizes = try #require(propertyValues(pod, key: SPA_FORMAT_VIDEO_size.rawValue))
            #expect(sizes.choice == SPA_CHOICE_Range.rawValue)
            #expect(sizes.values == [[1280, 720], [1, 1], [4096, 2160]])
            let rate = try #require(propertyValues(pod, key: SPA_FORMAT_VIDEO_framerate.rawValue))
            #expect(rate.choice == SPA_CHOICE_Range.rawValue)
            #expect(rate.values == [[30, 1], [0, 1], [240, 1]])
        }
    }

    @Test("a producer's fixed format parses back to the same VideoFormat", arguments: PixelFormat.allCases)
    func fixedFormatRoundTrips(pixelFormat: PixelFormat) throws {
        let format = VideoFormat(pixelFormat: pixelFormat, width: 1366, height: 768, frameRate: FrameRate(60000, 1001))
        let parsed = try withFirstPod({ VideoParams.fixedFormat(into: $0, format) }) { try VideoParams.parseFormat($0) }
        #expect(parsed == format)
    }

    @Test("a negotiated format outside the four is refused with its name")
    func foreignFormatIsRefused() throws {
        try withFirstPod({ b in
            b.object(type: UInt32(SPA_TYPE_OBJECT_Format), id: SPA_PARAM_Format.rawValue) {
                b.prop(SPA_FORMAT_mediaType.rawValue) { b.id(SPA_MEDIA_TYPE_video.rawValue) }
                b.prop(SPA_FORMAT_mediaSubtype.rawValue) { b.id(SPA_MEDIA_SUBTYPE_raw.rawValue) }
                b.prop(SPA_FORMAT_VIDEO_format.rawValue) { b.id(SPA_VIDEO_FORMAT_NV12.rawValue) }
                b.prop(SPA_FORMAT_VIDEO_size.rawValue) { b.rectangle(640, 480) }
            }
        }) { pod in
            #expect(throws: PipeWireError.unsupportedFormat("NV12")) { try VideoParams.parseFormat(pod) }
        } as Void
    }

    @Test("an audio format is refused as video, and a video format as audio")
    func mediaTypesAreChecked() throws {
        try withFirstPod({ AudioParams.enumFormat(into: $0, sampleFormat: .f32, rate: 48_000, channels: 2) }) { pod in
            #expect(throws: PipeWireError.self) { try VideoParams.parseFormat(pod) }
            let parsed = try AudioParams.parseFormat(pod)
            #expect(parsed == AudioFormat(sampleFormat: .f32, sampleRate: 48_000, channels: 2))
        } as Void
        try withFirstPod({ VideoParams.fixedFormat(into: $0, VideoFormat(pixelFormat: .bgrx, width: 8, height: 8)) }) { pod in
            #expect(throws: PipeWireError.self) { try AudioParams.parseFormat(pod) }
        } as Void
    }

    @Test("the audio EnumFormat leaves the channel count open unless asked", arguments: [nil, 1, 6] as [Int?])
    func audioEnumFormatChannels(channels: Int?) throws {
        try withFirstPod({ AudioParams.enumFormat(into: $0, sampleFormat: .s16, rate: 44_100, channels: channels) }) { pod in
            var info = spa_audio_info_raw()
            #expect(spa_format_audio_raw_parse(pod, &info) >= 0)
            #expect(info.format == SPA_AUDIO_FORMAT_S16_LE && info.rate == 44_100)
            #expect(info.channels == UInt32(channels ?? 0))
        }
    }

    @Test("the Buffers param asks for one block of stride x height bytes in the given memory types")
    func buffersParam() throws {
        try withFirstPod({ VideoParams.buffers(into: $0, stride: 1280 * 4, height: 720, count: (8, 2, 16),
                                               dataTypes: [SPA_DATA_MemPtr, SPA_DATA_MemFd]) }) { pod in
            #expect(propertyValues(pod, key: SPA_PARAM_BUFFERS_size.rawValue)?.values == [[UInt32(1280 * 4 * 720)]])
            #expect(propertyValues(pod, key: SPA_PARAM_BUFFERS_stride.rawValue)?.values == [[UInt32(1280 * 4)]])
            #expect(propertyValues(pod, key: SPA_PARAM_BUFFERS_blocks.rawValue)?.values == [[1]])
            let types = try #require(propertyValues(pod, key: SPA_PARAM_BUFFERS_dataType.rawValue))
            #expect(types.choice == SPA_CHOICE_Flags.rawValue)
            #expect(types.values.first == [(1 << SPA_DATA_MemPtr.rawValue) | (1 << SPA_DATA_MemFd.rawValue)])
        }
    }

    @Test("the cursor Meta param offers room for bitmaps from 1x1 up to the maximum")
    func cursorMetaParam() throws {
        try withFirstPod({ VideoParams.cursorMeta(into: $0, preferred: 64, max: 256) }) { pod in
            #expect(propertyValues(pod, key: SPA_PARAM_META_type.rawValue)?.values == [[SPA_META_Cursor.rawValue]])
            let sizes = try #require(propertyValues(pod, key: SPA_PARAM_META_size.rawValue))
            #expect(sizes.values == [64, 1, 256].map { [UInt32(VideoParams.cursorMetaSize(width: $0, height: $0))] })
        }
        #expect(VideoParams.cursorMetaSize(width: 64, height: 64)
                == MemoryLayout<spa_meta_cursor>.size + MemoryLayout<spa_meta_bitmap>.size + 64 * 64 * 4)
    }

    @Test("a pod too large for the builder is an error, not a crash")
    func builderOverflowIsAnError() {
        let b = SPAPodBuilder(capacity: 64)
        VideoParams.enumFormat(into: b, formats: PixelFormat.allCases, preferredSize: (1, 1), minSize: (1, 1),
                               maxSize: (2, 2), preferredRate: FrameRate(1), maxRate: FrameRate(2))
        #expect(throws: PipeWireError.podBuildFailed("overflow test")) {
            try b.withPods("overflow test") { _, _ throws(PipeWireError) in () }
        }
    }
}
