/// An axis-aligned rectangle in pixels (origin top-left), used for crop regions, masks and stream positions.
public struct PixelRect: Sendable, Hashable, Codable, CustomStringConvertible {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    public var isEmpty: Bool { width <= 0 || height <= 0 }

    /// The part of `self` inside `other`, or nil when they do not overlap.
    public func intersection(_ other: PixelRect) -> PixelRect? {
        let x0 = max(x, other.x), y0 = max(y, other.y)
        let x1 = min(x + width, other.x + other.width), y1 = min(y + height, other.y + other.height)
        return x1 > x0 && y1 > y0 ? PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0) : nil
    }

    public var description: String { "\(x),\(y),\(width),\(height)" }
}
