import CPipeWire

extension PixelFormat {
    /// The matching `enum spa_video_format` value (`SPA_VIDEO_FORMAT_BGRx` etc.; both name bytes in memory order).
    public var spaVideoFormat: UInt32 {
        switch self {
        case .bgrx: SPA_VIDEO_FORMAT_BGRx.rawValue
        case .rgbx: SPA_VIDEO_FORMAT_RGBx.rawValue
        case .bgra: SPA_VIDEO_FORMAT_BGRA.rawValue
        case .rgba: SPA_VIDEO_FORMAT_RGBA.rawValue
        }
    }

    /// The pixel format for an `enum spa_video_format` value, or nil for formats pwrecord does not handle.
    public init?(spaVideoFormat: UInt32) {
        switch spaVideoFormat {
        case SPA_VIDEO_FORMAT_BGRx.rawValue: self = .bgrx
        case SPA_VIDEO_FORMAT_RGBx.rawValue: self = .rgbx
        case SPA_VIDEO_FORMAT_BGRA.rawValue: self = .bgra
        case SPA_VIDEO_FORMAT_RGBA.rawValue: self = .rgba
        default: return nil
        }
    }

    /// The short SPA name of any `spa_video_format` value ("BGRx", "NV12", ...), for messages.
    static func spaName(_ format: UInt32) -> String {
        cpw_video_format_name(format).map { String(cString: $0) } ?? "format \(format)"
    }
}
