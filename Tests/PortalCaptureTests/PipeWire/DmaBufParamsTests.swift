import CPipeWire
import Glibc
import Testing
@testable import PortalCapture

@Suite("DMA-BUF params and access")
struct DmaBufParamsTests {
    /// The flags of the modifier property (`spa_pod_prop.flags`), or nil without one.
    func modifierFlags(_ pod: UnsafePointer<spa_pod>) -> UInt32? {
        spa_pod_find_prop(pod, nil, SPA_FORMAT_VIDEO_modifier.rawValue)?.pointee.flags
    }

    /// The 64-bit values of a property read back as pairs of 32-bit words (low word first).
    func longs(_ words: [[UInt32]]) -> [UInt64] {
        words.map { UInt64($0[0]) | UInt64($0[1]) << 32 }
    }

    @Test("the consumer's DMA-BUF EnumFormat carries the modifier: mandatory, not to fixate, linear and invalid")
    func consumerModifierPod() throws {
        try withFirstPod({ b in
            VideoParams.enumFormat(into: b, formats: [.bgra], modifiers: VideoCaptureStream.offeredModifiers,
                                   preferredSize: (640, 480), minSize: (1, 1), maxSize: (4096, 4096),
                                   preferredRate: FrameRate(60), maxRate: FrameRate(240))
        }) { pod in
            #expect(modifierFlags(pod) == CPW_POD_PROP_FLAG_MANDATORY | CPW_POD_PROP_FLAG_DONT_FIXATE)
            let values = try #require(propertyValues(pod, key: SPA_FORMAT_VIDEO_modifier.rawValue))
            #expect(values.choice == SPA_CHOICE_Enum.rawValue)
            #expect(longs(values.values) == [0, 0, 0x00ff_ffff_ffff_ffff], "default linear, then linear and invalid")
            let modifier = try VideoParams.modifier(in: pod)
            #expect(modifier == .unfixated([.linear, .invalid]))
            // The rest of the format still parses as before (the modifier choice is skipped).
            let formats = try #require(propertyValues(pod, key: SPA_FORMAT_VIDEO_format.rawValue))
            #expect(formats.values.map { $0[0] } == [PixelFormat.bgra.spaVideoFormat, PixelFormat.bgra.spaVideoFormat])
        }
    }

    @Test("a plain EnumFormat has no modifier: shared memory")
    func plainPodHasNoModifier() throws {
        try withFirstPod({ b in
            VideoParams.enumFormat(into: b, formats: PixelFormat.allCases, preferredSize: (64, 64), minSize: (1, 1),
                                   maxSize: (128, 128), preferredRate: FrameRate(30), maxRate: FrameRate(60))
        }) { pod in
            #expect(modifierFlags(pod) == nil)
            let modifier = try VideoParams.modifier(in: pod)
            #expect(modifier == nil)
        }
    }

    @Test("a producer's modifier list is open until it announces its pick alone, which parses as fixed")
    func producerModifierPods() throws {
        let format = VideoFormat(pixelFormat: .rgbx, width: 800, height: 600, frameRate: FrameRate(30))
        try withFirstPod({ VideoParams.fixedFormat(into: $0, format, modifiers: [.intelXTiled, .invalid]) }) { pod in
            #expect(modifierFlags(pod) == CPW_POD_PROP_FLAG_MANDATORY | CPW_POD_PROP_FLAG_DONT_FIXATE)
            let modifier = try VideoParams.modifier(in: pod)
            #expect(modifier == .unfixated([.intelXTiled, .invalid]))
            let parsed = try VideoParams.parseFormat(pod)
            #expect(parsed == format)
        }
        try withFirstPod({ VideoParams.fixedFormat(into: $0, format, modifiers: [.intelXTiled], fixated: true) }) { pod in
            #expect(modifierFlags(pod) == CPW_POD_PROP_FLAG_MANDATORY)
            let modifier = try VideoParams.modifier(in: pod)
            #expect(modifier == .fixed(.intelXTiled))
            let parsed = try VideoParams.parseFormat(pod)
            #expect(parsed == format)
            // What the link does to a format before setting it: fixate every choice not flagged DONT_FIXATE.
            try withFixatedCopy(of: pod) { fixated, fixateResult in
                #expect(fixateResult >= 0)
                #expect(propertyValues(fixated, key: SPA_FORMAT_VIDEO_modifier.rawValue)?.choice == SPA_CHOICE_None.rawValue)
                let fixatedModifier = try VideoParams.modifier(in: fixated)
                #expect(fixatedModifier == .fixed(.intelXTiled))
                var info = spa_video_info_raw()
                #expect(spa_format_video_raw_parse(fixated, &info) >= 0)
                #expect(info.modifier == DRMFormatModifier.intelXTiled.rawValue)
                #expect(info.flags & SPA_VIDEO_FLAG_MODIFIER.rawValue != 0)
            }
        }
    }

    @Test("a modifier that is not a long is an error naming it, not a crash")
    func malformedModifierIsAnError() throws {
        try withFirstPod({ b in
            b.object(type: UInt32(SPA_TYPE_OBJECT_Format), id: SPA_PARAM_Format.rawValue) {
                b.prop(SPA_FORMAT_mediaType.rawValue) { b.id(SPA_MEDIA_TYPE_video.rawValue) }
                b.prop(SPA_FORMAT_mediaSubtype.rawValue) { b.id(SPA_MEDIA_SUBTYPE_raw.rawValue) }
                b.prop(SPA_FORMAT_VIDEO_modifier.rawValue) { b.int(7) }
            }
        }) { pod in
            #expect(throws: PipeWireError.unsupportedFormat("a modifier that is not a long")) {
                try VideoParams.modifier(in: pod)
            }
        } as Void
    }

    @Test("the producer fixates an explicit modifier the link left open, the implicit one only failing that")
    func producerPick() {
        #expect(VideoProducerStream.pickModifier(ours: [.invalid, .linear], open: [.linear, .invalid]) == .linear)
        #expect(VideoProducerStream.pickModifier(ours: [.intelXTiled, .linear], open: [.linear]) == .linear)
        #expect(VideoProducerStream.pickModifier(ours: [.intelXTiled, .invalid], open: [.invalid]) == .invalid)
        #expect(VideoProducerStream.pickModifier(ours: [.intelXTiled], open: [.linear, .invalid]) == nil)
    }

    @Test("only the linear modifier is linear; modifiers name themselves")
    func modifierNames() {
        #expect(DRMFormatModifier.linear.isLinear)
        #expect(!DRMFormatModifier.invalid.isLinear && !DRMFormatModifier.intelXTiled.isLinear)
        #expect(DRMFormatModifier.linear.description == "linear")
        #expect(DRMFormatModifier.invalid.description == "invalid (implicit layout)")
        #expect(DRMFormatModifier.intelXTiled.description == "0x100000000000001 (vendor 1)")
    }

    @Test("the DMA-BUF sync ioctl on a memfd (the test stand-in) reports it is not a DMA-BUF, and a bad fd fails")
    func syncOnStandIns() throws {
        let fd = cpw_memfd_create("pwrecord-dmabuf-test", CPW_MFD_CLOEXEC)
        try #require(fd >= 0)
        defer { close(fd) }
        #expect(DmaBufAccess(fd: fd).beginRead() == .notDmaBuf)
        #expect(DmaBufAccess(fd: fd).endRead() == .notDmaBuf)
        #expect(DmaBufAccess(fd: -1).beginRead() == .failed(errno: EBADF))
        var data = spa_data()
        data.type = SPA_DATA_MemFd.rawValue
        data.fd = Int64(fd)
        #expect(DmaBufAccess(data) == nil, "memfd data is not DMA-BUF")
        data.type = SPA_DATA_DmaBuf.rawValue
        #expect(DmaBufAccess(data)?.fd == fd)
    }
}
