/// A DRM format modifier (`drm_fourcc.h`): how a DMA-BUF's pixels are laid out in memory, carried in a video
/// format as `SPA_FORMAT_VIDEO_modifier` (a `long`). Only a linear buffer reads correctly through `mmap`; the
/// others are tiled or compressed in a vendor's layout.
public struct DRMFormatModifier: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt64

    public init(rawValue: UInt64) { self.rawValue = rawValue }

    /// `DRM_FORMAT_MOD_LINEAR` (0): rows one after the other, `stride` bytes apart.
    public static let linear = DRMFormatModifier(rawValue: 0)
    /// `DRM_FORMAT_MOD_INVALID` (`(1 << 56) - 1`): no explicit modifier; the layout is whatever the driver
    /// chose (the "implicit modifier"), so it cannot be assumed linear.
    public static let invalid = DRMFormatModifier(rawValue: 0x00ff_ffff_ffff_ffff)
    /// `I915_FORMAT_MOD_X_TILED`: Intel's X tiling (a non-linear example).
    public static let intelXTiled = DRMFormatModifier(rawValue: 0x0100_0000_0000_0001)

    /// Whether a CPU mapping of the buffer shows the rows in order (only `linear`).
    public var isLinear: Bool { self == .linear }

    public var description: String {
        switch self {
        case .linear: "linear"
        case .invalid: "invalid (implicit layout)"
        default: "0x" + String(rawValue, radix: 16) + " (vendor \(rawValue >> 56))"
        }
    }
}
