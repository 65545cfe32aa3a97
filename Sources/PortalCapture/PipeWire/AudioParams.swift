import CPipeWire

/// The SPA params an audio capture stream announces.
enum AudioParams {
    /// The `spa_audio_format` for a sample format (interleaved, native little endian).
    static func spaFormat(_ f: AudioFormat.SampleFormat) -> UInt32 {
        switch f {
        case .f32: SPA_AUDIO_FORMAT_F32_LE.rawValue
        case .s16: SPA_AUDIO_FORMAT_S16_LE.rawValue
        }
    }

    static func sampleFormat(spaFormat: UInt32) -> AudioFormat.SampleFormat? {
        switch spaFormat {
        case SPA_AUDIO_FORMAT_F32_LE.rawValue: .f32
        case SPA_AUDIO_FORMAT_S16_LE.rawValue: .s16
        default: nil
        }
    }

    /// `SPA_PARAM_EnumFormat`, audio/raw, with a fixed sample format and rate; `channels` fixed when
    /// given, else left out so the stream's converter takes the source's channel count.
    static func enumFormat(into b: SPAPodBuilder, sampleFormat: AudioFormat.SampleFormat, rate: Int, channels: Int?) {
        b.object(type: UInt32(SPA_TYPE_OBJECT_Format), id: SPA_PARAM_EnumFormat.rawValue) {
            b.prop(SPA_FORMAT_mediaType.rawValue) { b.id(SPA_MEDIA_TYPE_audio.rawValue) }
            b.prop(SPA_FORMAT_mediaSubtype.rawValue) { b.id(SPA_MEDIA_SUBTYPE_raw.rawValue) }
            b.prop(SPA_FORMAT_AUDIO_format.rawValue) { b.id(spaFormat(sampleFormat)) }
            b.prop(SPA_FORMAT_AUDIO_rate.rawValue) { b.int(Int32(rate)) }
            if let channels { b.prop(SPA_FORMAT_AUDIO_channels.rawValue) { b.int(Int32(channels)) } }
        }
    }

    /// Parses a negotiated `SPA_PARAM_Format` (`spa_format_audio_raw_parse`).
    static func parseFormat(_ pod: UnsafePointer<spa_pod>) throws(PipeWireError) -> AudioFormat {
        var mediaType: UInt32 = 0, mediaSubtype: UInt32 = 0
        guard spa_format_parse(pod, &mediaType, &mediaSubtype) >= 0,
              mediaType == SPA_MEDIA_TYPE_audio.rawValue, mediaSubtype == SPA_MEDIA_SUBTYPE_raw.rawValue else {
            throw .unsupportedFormat("media type \(mediaType)/\(mediaSubtype) (expected audio/raw)")
        }
        var info = spa_audio_info_raw()
        guard spa_format_audio_raw_parse(pod, &info) >= 0 else { throw .unsupportedFormat("unparsable audio/raw format") }
        guard let sample = sampleFormat(spaFormat: info.format.rawValue) else {
            throw .unsupportedFormat("audio sample format \(info.format.rawValue) (expected F32LE or S16LE)")
        }
        guard info.rate > 0, info.channels > 0 else {
            throw .unsupportedFormat("audio \(info.rate) Hz, \(info.channels) channels")
        }
        return AudioFormat(sampleFormat: sample, sampleRate: Int(info.rate), channels: Int(info.channels))
    }
}
