import PortalCapture

/// What the streams started from now on look like: set at start-up by the command line and later by
/// `org.pwrecord.TestPortal.SetStreamOptions` (keys below). Options are values: `applying(_:)` returns a
/// new, validated value or throws, so a bad call changes nothing.
struct StreamOptions: Sendable, Equatable {
    /// What a stream shows.
    enum Content: String, Sendable, CaseIterable {
        /// `TestPattern`: colour areas and a frame counter.
        case pattern
        /// `ScrollingPage`: a tall page scrolled by `scrollStep` rows per frame, with optional fixed header and
        /// footer bands.
        case page
    }

    var width = 320
    var height = 240
    var fps = 30
    var pixelFormat = PixelFormat.bgrx
    var content = Content.pattern
    /// Page mode: the height of the whole page (`ScrollingPage.pageHeight`: header + body + footer rows, what
    /// a perfect long screenshot gives).
    var pageHeight = 2400
    /// Page mode: rows at the top / bottom of every frame that do not scroll.
    var header = 0
    var footer = 0
    /// Page mode: pixels scrolled per frame; negative scrolls up.
    var scrollStep = 8
    /// Streams returned for one chosen source (KDE returns more than one for some sources).
    var streamsPerSource = 1

    /// The `SetStreamOptions` keys, with their D-Bus types.
    static let keys = ["width u", "height u", "fps u", "format s", "content s", "page_height u", "header u",
                       "footer u", "scroll_step i", "streams_per_source u"]

    var videoFormat: VideoFormat {
        VideoFormat(pixelFormat: pixelFormat, width: width, height: height, frameRate: FrameRate(fps))
    }

    /// These options with every key of `dict` applied. Throws ``BackendError/invalidOption(key:reason:)`` for
    /// an unknown key, a value of the wrong type or out of range.
    func applying(_ dict: DBusVardict) throws(BackendError) -> StreamOptions {
        var o = self
        for key in dict.keys {
            let value = dict[key]!
            switch key {
            case "width": o.width = try Self.uint(value, key, 1...16384)
            case "height": o.height = try Self.uint(value, key, 1...16384)
            case "fps": o.fps = try Self.uint(value, key, 1...1000)
            case "format":
                guard case .string(let name) = value else { throw Self.wrongType(key, "s", value) }
                guard let format = PixelFormat(rawValue: name) else {
                    throw .invalidOption(key: key, reason: "'\(name)' is not one of "
                                         + PixelFormat.allCases.map(\.rawValue).joined(separator: ", "))
                }
                o.pixelFormat = format
            case "content":
                guard case .string(let name) = value else { throw Self.wrongType(key, "s", value) }
                guard let content = Content(rawValue: name) else {
                    throw .invalidOption(key: key, reason: "'\(name)' is not 'pattern' or 'page'")
                }
                o.content = content
            case "page_height": o.pageHeight = try Self.uint(value, key, 1...1_000_000)
            case "header": o.header = try Self.uint(value, key, 0...16384)
            case "footer": o.footer = try Self.uint(value, key, 0...16384)
            case "scroll_step":
                guard case .int32(let step) = value else { throw Self.wrongType(key, "i", value) }
                o.scrollStep = Int(step)
            case "streams_per_source": o.streamsPerSource = try Self.uint(value, key, 1...8)
            default:
                throw .invalidOption(key: key, reason: "unknown key")
            }
        }
        try o.validate()
        return o
    }

    /// Checks what single keys cannot: header and footer leave room for the scrolling part, and the page is at
    /// least as tall as a frame.
    func validate() throws(BackendError) {
        if header + footer >= height {
            throw .invalidOption(key: "header", reason: "header \(header) + footer \(footer) must be less than the "
                                 + "height \(height)")
        }
        if pageHeight < height {
            throw .invalidOption(key: "page_height", reason: "\(pageHeight) is shorter than a frame (\(height) rows); "
                                 + "the page includes header and footer")
        }
    }

    /// The options as a vardict, with the same keys as `SetStreamOptions` (for logs and `Stats`).
    var vardict: DBusVardict {
        ["width": UInt32(width), "height": UInt32(height), "fps": UInt32(fps), "format": pixelFormat.rawValue,
         "content": content.rawValue, "page_height": UInt32(pageHeight), "header": UInt32(header),
         "footer": UInt32(footer), "scroll_step": Int32(clamping: scrollStep),
         "streams_per_source": UInt32(streamsPerSource)]
    }

    private static func uint(_ value: DBusValue, _ key: String, _ range: ClosedRange<Int>) throws(BackendError) -> Int {
        guard case .uint32(let n) = value else { throw wrongType(key, "u", value) }
        guard range.contains(Int(n)) else {
            throw .invalidOption(key: key, reason: "\(n) is outside \(range.lowerBound)...\(range.upperBound)")
        }
        return Int(n)
    }

    private static func wrongType(_ key: String, _ expected: String, _ value: DBusValue) -> BackendError {
        .invalidOption(key: key, reason: "expected type \(expected), got \(value.signature)")
    }
}
