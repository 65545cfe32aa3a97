/// Which part of a frame is stitched: the caller's region of interest, else the producer's valid crop
/// (`SPA_META_VideoCrop`), else the whole frame.
enum StitchRegion {
    static func resolve(_ region: PixelRect?, in frame: VideoFrame, minimumHeight: Int) throws(ScreenshotError) -> PixelRect {
        let bounds = PixelRect(x: 0, y: 0, width: frame.format.width, height: frame.format.height)
        let area: PixelRect
        if let region {
            guard region.x >= 0, region.y >= 0, region.width > 0, region.height > 0,
                  region.x + region.width <= bounds.width, region.y + region.height <= bounds.height else {
                throw .regionOutsideFrame(region: region, frameWidth: bounds.width, frameHeight: bounds.height)
            }
            area = region
        } else if let crop = frame.crop {
            area = crop.intersection(bounds) ?? PixelRect(x: 0, y: 0, width: 0, height: 0)
        } else {
            area = bounds
        }
        guard area.width >= 1, area.height >= minimumHeight else {
            throw .regionTooSmall(width: area.width, height: area.height, minimumHeight: minimumHeight)
        }
        return area
    }
}
