import CPipeWire

/// The SPA params (pods) a video stream announces: formats, buffers and metas.
enum VideoParams {
    /// The bytes a `SPA_META_Cursor` needs for a `width x height` RGBA bitmap
    /// (the C macro `CURSOR_META_SIZE`): `spa_meta_cursor` + `spa_meta_bitmap` + pixels.
    static func cursorMetaSize(width: Int, height: Int) -> Int {
        MemoryLayout<spa_meta_cursor>.size + MemoryLayout<spa_meta_bitmap>.size + width * height * 4
    }

    /// `SPA_PARAM_EnumFormat` of type `SPA_TYPE_OBJECT_Format`, video/raw, with `formats` as an enum choice
    /// (the first is preferred), the size as a range and the frame rate as a range. This is what a consumer
    /// offers; each format must be one of BGRx, RGBx, BGRA, RGBA.
    ///
    /// With `modifiers` (not empty) the pod offers DMA-BUF: `SPA_FORMAT_VIDEO_modifier` flagged
    /// `MANDATORY | DONT_FIXATE` as an enum choice of the modifiers (PipeWire's dma-buf doc: the allocating
    /// producer fixates it). Such pods go before the plain (shared memory) ones, one per pixel format.
    static func enumFormat(into b: SPAPodBuilder, formats: [PixelFormat], modifiers: [DRMFormatModifier] = [],
                           preferredSize: (Int, Int), minSize: (Int, Int), maxSize: (Int, Int),
                           preferredRate: FrameRate, maxRate: FrameRate) {
        b.object(type: UInt32(SPA_TYPE_OBJECT_Format), id: SPA_PARAM_EnumFormat.rawValue) {
            mediaTypeRaw(b)
            b.prop(SPA_FORMAT_VIDEO_format.rawValue) {
                b.choice(SPA_CHOICE_Enum) {
                    b.id(formats[0].spaVideoFormat)
                    for f in formats { b.id(f.spaVideoFormat) }
                }
            }
            if !modifiers.isEmpty { modifierChoice(b, modifiers, fixate: false) }
            b.prop(SPA_FORMAT_VIDEO_size.rawValue) {
                b.choice(SPA_CHOICE_Range) {
                    b.rectangle(UInt32(preferredSize.0), UInt32(preferredSize.1))
                    b.rectangle(UInt32(minSize.0), UInt32(minSize.1))
                    b.rectangle(UInt32(maxSize.0), UInt32(maxSize.1))
                }
            }
            b.prop(SPA_FORMAT_VIDEO_framerate.rawValue) {
                b.choice(SPA_CHOICE_Range) {
                    b.fraction(UInt32(preferredRate.numerator), UInt32(preferredRate.denominator))
                    b.fraction(0, 1)
                    b.fraction(UInt32(maxRate.numerator), UInt32(maxRate.denominator))
                }
            }
        }
    }

    /// `SPA_PARAM_EnumFormat` with every property fixed: what a producer (a compositor) offers.
    ///
    /// With `modifiers` (not empty) it offers DMA-BUF: `SPA_FORMAT_VIDEO_modifier`, `MANDATORY`, an enum
    /// choice. Flagged `DONT_FIXATE` too unless `fixated`: the producer announces all it can allocate first
    /// and, once the link has intersected them with the consumer's, announces its pick alone (`fixated`).
    static func fixedFormat(into b: SPAPodBuilder, _ format: VideoFormat, modifiers: [DRMFormatModifier] = [],
                            fixated: Bool = false) {
        b.object(type: UInt32(SPA_TYPE_OBJECT_Format), id: SPA_PARAM_EnumFormat.rawValue) {
            mediaTypeRaw(b)
            b.prop(SPA_FORMAT_VIDEO_format.rawValue) { b.id(format.pixelFormat.spaVideoFormat) }
            if !modifiers.isEmpty { modifierChoice(b, modifiers, fixate: fixated) }
            b.prop(SPA_FORMAT_VIDEO_size.rawValue) { b.rectangle(UInt32(format.width), UInt32(format.height)) }
            b.prop(SPA_FORMAT_VIDEO_framerate.rawValue) {
                b.fraction(UInt32(format.frameRate.numerator), UInt32(format.frameRate.denominator))
            }
        }
    }

    /// `SPA_FORMAT_VIDEO_modifier` as an enum choice of longs (the first is the default).
    private static func modifierChoice(_ b: SPAPodBuilder, _ modifiers: [DRMFormatModifier], fixate: Bool) {
        let flags = CPW_POD_PROP_FLAG_MANDATORY | (fixate ? 0 : CPW_POD_PROP_FLAG_DONT_FIXATE)
        b.prop(SPA_FORMAT_VIDEO_modifier.rawValue, flags: flags) {
            b.choice(SPA_CHOICE_Enum) {
                b.long(Int64(bitPattern: modifiers[0].rawValue))
                for m in modifiers { b.long(Int64(bitPattern: m.rawValue)) }
            }
        }
    }

    /// What `SPA_FORMAT_VIDEO_modifier` says in a negotiated `SPA_PARAM_Format`.
    enum NegotiatedModifier: Equatable {
        /// One modifier: the producer fixated it (its buffers will be DMA-BUFs in this layout).
        case fixed(DRMFormatModifier)
        /// Still a choice (`DONT_FIXATE`, or several values): the producer has yet to pick one of these.
        case unfixated([DRMFormatModifier])
    }

    /// The modifier property of a format pod (`spa_pod_find_prop`, `spa_pod_get_values`), or nil when it
    /// has none (shared-memory buffers). Throws `unsupportedFormat` when it is not a long or has no value.
    static func modifier(in pod: UnsafePointer<spa_pod>) throws(PipeWireError) -> NegotiatedModifier? {
        guard let prop = spa_pod_find_prop(pod, nil, SPA_FORMAT_VIDEO_modifier.rawValue) else { return nil }
        let offset = MemoryLayout<spa_pod_prop>.offset(of: \spa_pod_prop.value)!
        let value = UnsafeRawPointer(prop).advanced(by: offset).assumingMemoryBound(to: spa_pod.self)
        var count: UInt32 = 0, choice: UInt32 = 0
        guard let child = spa_pod_get_values(value, &count, &choice), count > 0,
              child.pointee.type == UInt32(SPA_TYPE_Long), child.pointee.size == 8 else {
            throw .unsupportedFormat("a modifier that is not a long")
        }
        let body = UnsafeRawPointer(child).advanced(by: MemoryLayout<spa_pod>.size)
        let values = (0..<Int(count)).map {
            DRMFormatModifier(rawValue: body.loadUnaligned(fromByteOffset: $0 * 8, as: UInt64.self))
        }
        // A choice's first value is its default; the alternatives follow (an enum repeats the default).
        var alternatives: [DRMFormatModifier] = []
        for m in (choice == SPA_CHOICE_None.rawValue ? values : Array(values.dropFirst()))
            where !alternatives.contains(m) { alternatives.append(m) }
        if alternatives.isEmpty { alternatives = [values[0]] }
        let dontFixate = prop.pointee.flags & CPW_POD_PROP_FLAG_DONT_FIXATE != 0
        if dontFixate || alternatives.count > 1 { return .unfixated(alternatives) }
        return .fixed(alternatives[0])
    }

    private static func mediaTypeRaw(_ b: SPAPodBuilder) {
        b.prop(SPA_FORMAT_mediaType.rawValue) { b.id(SPA_MEDIA_TYPE_video.rawValue) }
        b.prop(SPA_FORMAT_mediaSubtype.rawValue) { b.id(SPA_MEDIA_SUBTYPE_raw.rawValue) }
    }

    /// `SPA_PARAM_Buffers`: `count` buffers (a range around it) of one block of `stride * height` bytes,
    /// with the allowed `spa_data_type`s as a flags choice (`1 << SPA_DATA_MemFd` ...).
    static func buffers(into b: SPAPodBuilder, stride: Int, height: Int, count: (Int32, Int32, Int32),
                        dataTypes: [spa_data_type]) {
        b.object(type: UInt32(SPA_TYPE_OBJECT_ParamBuffers), id: SPA_PARAM_Buffers.rawValue) {
            b.prop(SPA_PARAM_BUFFERS_buffers.rawValue) {
                b.choice(SPA_CHOICE_Range) { b.int(count.0); b.int(count.1); b.int(count.2) }
            }
            b.prop(SPA_PARAM_BUFFERS_blocks.rawValue) { b.int(1) }
            b.prop(SPA_PARAM_BUFFERS_size.rawValue) { b.int(Int32(stride * height)) }
            b.prop(SPA_PARAM_BUFFERS_stride.rawValue) { b.int(Int32(stride)) }
            b.prop(SPA_PARAM_BUFFERS_dataType.rawValue) {
                b.choice(SPA_CHOICE_Flags) {
                    b.int(Int32(dataTypes.reduce(0) { $0 | (1 << $1.rawValue) }))
                }
            }
        }
    }

    /// `SPA_PARAM_Meta` with a fixed size.
    static func meta(into b: SPAPodBuilder, _ type: spa_meta_type, size: Int) {
        b.object(type: UInt32(SPA_TYPE_OBJECT_ParamMeta), id: SPA_PARAM_Meta.rawValue) {
            b.prop(SPA_PARAM_META_type.rawValue) { b.id(type.rawValue) }
            b.prop(SPA_PARAM_META_size.rawValue) { b.int(Int32(size)) }
        }
    }

    /// `SPA_PARAM_Meta` for `SPA_META_Cursor` with a size range from a 1x1 to a `max x max` bitmap.
    static func cursorMeta(into b: SPAPodBuilder, preferred: Int, max: Int) {
        b.object(type: UInt32(SPA_TYPE_OBJECT_ParamMeta), id: SPA_PARAM_Meta.rawValue) {
            b.prop(SPA_PARAM_META_type.rawValue) { b.id(SPA_META_Cursor.rawValue) }
            b.prop(SPA_PARAM_META_size.rawValue) {
                b.choice(SPA_CHOICE_Range) {
                    b.int(Int32(cursorMetaSize(width: preferred, height: preferred)))
                    b.int(Int32(cursorMetaSize(width: 1, height: 1)))
                    b.int(Int32(cursorMetaSize(width: max, height: max)))
                }
            }
        }
    }

    /// Parses a `SPA_PARAM_Format` pod (`spa_format_parse` + `spa_format_video_raw_parse`) into a
    /// `VideoFormat`; throws `unsupportedFormat` for non-raw video or a pixel format outside the four.
    static func parseFormat(_ pod: UnsafePointer<spa_pod>) throws(PipeWireError) -> VideoFormat {
        var mediaType: UInt32 = 0, mediaSubtype: UInt32 = 0
        guard spa_format_parse(pod, &mediaType, &mediaSubtype) >= 0,
              mediaType == SPA_MEDIA_TYPE_video.rawValue, mediaSubtype == SPA_MEDIA_SUBTYPE_raw.rawValue else {
            throw .unsupportedFormat("media type \(mediaType)/\(mediaSubtype) (expected video/raw)")
        }
        var info = spa_video_info_raw()
        guard spa_format_video_raw_parse(pod, &info) >= 0 else { throw .unsupportedFormat("unparsable video/raw format") }
        guard let pixelFormat = PixelFormat(spaVideoFormat: info.format.rawValue) else {
            throw .unsupportedFormat(PixelFormat.spaName(info.format.rawValue))
        }
        guard info.size.width > 0, info.size.height > 0 else {
            throw .unsupportedFormat("size \(info.size.width)x\(info.size.height)")
        }
        var rate = FrameRate(Int(info.framerate.num), Int(max(info.framerate.denom, 1)))
        if rate.numerator == 0, info.max_framerate.num > 0 {
            rate = FrameRate(Int(info.max_framerate.num), Int(max(info.max_framerate.denom, 1)))
        }
        return VideoFormat(pixelFormat: pixelFormat, width: Int(info.size.width), height: Int(info.size.height),
                           frameRate: rate)
    }
}
