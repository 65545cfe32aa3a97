import CPipeWire

/// Reading and writing the SPA metadata pwrecord uses on video buffers: `SPA_META_Cursor` (with its
/// `spa_meta_bitmap`) and `SPA_META_VideoCrop`. Every offset read from a buffer is checked against the
/// meta's size before it is followed.
enum BufferMetadata {
    /// What a buffer's cursor metadata says.
    enum Cursor: Equatable {
        /// The buffer has no `SPA_META_Cursor`.
        case absent
        /// `spa_meta_cursor.id` is 0: no pointer in the stream (hidden or outside).
        case hidden
        case visible(CursorState)
    }

    /// The raw fields of `SPA_META_Cursor` (all zero when absent or too small), plain values: two equal
    /// snapshots without a bitmap (`bitmapOffset` 0) mean the cursor did not change, which the capture path
    /// checks per buffer before it makes a `Cursor` (whose copies go through the runtime's value witnesses).
    struct CursorSnapshot: Equatable {
        var present = false
        var id: UInt32 = 0
        var x: Int32 = 0, y: Int32 = 0
        var hotspotX: Int32 = 0, hotspotY: Int32 = 0
        var bitmapOffset: UInt32 = 0
    }

    static func cursorSnapshot(in buffer: UnsafeMutablePointer<spa_buffer>) -> CursorSnapshot {
        guard let meta = spa_buffer_find_meta(buffer, SPA_META_Cursor.rawValue), let base = meta.pointee.data,
              Int(meta.pointee.size) >= MemoryLayout<spa_meta_cursor>.size else { return CursorSnapshot() }
        let c = base.assumingMemoryBound(to: spa_meta_cursor.self).pointee
        return CursorSnapshot(present: true, id: c.id, x: c.position.x, y: c.position.y,
                              hotspotX: c.hotspot.x, hotspotY: c.hotspot.y, bitmapOffset: c.bitmap_offset)
    }

    /// Reads `SPA_META_Cursor`. A bitmap is read when `bitmap_offset` points at a valid `spa_meta_bitmap`
    /// (format not 0); otherwise `previous`'s bitmap is kept.
    static func cursor(in buffer: UnsafeMutablePointer<spa_buffer>, previous: CursorState?) -> Cursor {
        guard let meta = spa_buffer_find_meta(buffer, SPA_META_Cursor.rawValue), let base = meta.pointee.data,
              Int(meta.pointee.size) >= MemoryLayout<spa_meta_cursor>.size else { return .absent }
        let size = Int(meta.pointee.size)
        let c = base.assumingMemoryBound(to: spa_meta_cursor.self).pointee
        guard c.id != 0 else { return .hidden }
        var state = CursorState(x: Int(c.position.x), y: Int(c.position.y),
                                hotspotX: Int(previous?.hotspotX ?? 0), hotspotY: Int(previous?.hotspotY ?? 0),
                                bitmap: previous?.bitmap)
        let bitmapOffset = Int(c.bitmap_offset)
        if bitmapOffset >= MemoryLayout<spa_meta_cursor>.size,
           bitmapOffset + MemoryLayout<spa_meta_bitmap>.size <= size {
            let bitmapBase = base.advanced(by: bitmapOffset)
            let bm = bitmapBase.assumingMemoryBound(to: spa_meta_bitmap.self).pointee
            if bm.format != 0 {
                state.hotspotX = Int(c.hotspot.x)
                state.hotspotY = Int(c.hotspot.y)
                state.bitmap = readBitmap(bm, at: bitmapBase, available: size - bitmapOffset)
            }
        }
        return .visible(state)
    }

    /// The pixels of a `spa_meta_bitmap` as straight RGBA, or nil (invisible) when it has no image data,
    /// an unknown format, or does not fit in `available` bytes. A bitmap with alpha is read as premultiplied,
    /// as the compositors write it (mutter reads its cursor texture as `RGBA_8888_PRE`, KWin paints into a
    /// `Format_RGBA8888_Premultiplied` image), and divided by its alpha (`PremultipliedAlpha`).
    private static func readBitmap(_ bm: spa_meta_bitmap, at base: UnsafeMutableRawPointer, available: Int) -> CursorBitmap? {
        let w = Int(bm.size.width), h = Int(bm.size.height), stride = Int(bm.stride)
        guard bm.offset >= UInt32(MemoryLayout<spa_meta_bitmap>.size), w > 0, h > 0, stride >= w * 4,
              Int(bm.offset) + stride * (h - 1) + w * 4 <= available,
              let order = channelOrder(bm.format) else { return nil }
        let src = UnsafeRawPointer(base.advanced(by: Int(bm.offset))).assumingMemoryBound(to: UInt8.self)
        var rgba = [UInt8](repeating: 0, count: w * h * 4)
        for y in 0..<h {
            for x in 0..<w {
                let p = src + y * stride + x * 4, o = (y * w + x) * 4
                if let alpha = order.a {
                    let a = p[alpha]
                    rgba[o] = PremultipliedAlpha.straight(p[order.r], alpha: a)
                    rgba[o + 1] = PremultipliedAlpha.straight(p[order.g], alpha: a)
                    rgba[o + 2] = PremultipliedAlpha.straight(p[order.b], alpha: a)
                    rgba[o + 3] = a
                } else {
                    rgba[o] = p[order.r]; rgba[o + 1] = p[order.g]; rgba[o + 2] = p[order.b]; rgba[o + 3] = 255
                }
            }
        }
        return CursorBitmap(width: w, height: h, rgba: rgba)
    }

    /// Byte offsets of R, G, B (and A) within a pixel of a bitmap format.
    private static func channelOrder(_ format: UInt32) -> (r: Int, g: Int, b: Int, a: Int?)? {
        switch format {
        case SPA_VIDEO_FORMAT_RGBA.rawValue: (0, 1, 2, 3)
        case SPA_VIDEO_FORMAT_BGRA.rawValue: (2, 1, 0, 3)
        case SPA_VIDEO_FORMAT_ARGB.rawValue: (1, 2, 3, 0)
        case SPA_VIDEO_FORMAT_ABGR.rawValue: (3, 2, 1, 0)
        case SPA_VIDEO_FORMAT_RGBx.rawValue: (0, 1, 2, nil)
        case SPA_VIDEO_FORMAT_BGRx.rawValue: (2, 1, 0, nil)
        default: nil
        }
    }

    /// Writes `SPA_META_Cursor`: `cursor` nil writes id 0 (no pointer); a bitmap is written (as premultiplied RGBA) when
    /// `includeBitmap` and it fits the meta, else `bitmap_offset` is 0 ("unchanged").
    static func writeCursor(_ cursor: CursorState?, includeBitmap: Bool, into buffer: UnsafeMutablePointer<spa_buffer>) {
        guard let meta = spa_buffer_find_meta(buffer, SPA_META_Cursor.rawValue), let base = meta.pointee.data,
              Int(meta.pointee.size) >= MemoryLayout<spa_meta_cursor>.size else { return }
        let c = base.assumingMemoryBound(to: spa_meta_cursor.self)
        guard let cursor else {
            c.pointee = spa_meta_cursor()
            return
        }
        c.pointee.id = 1
        c.pointee.flags = 0
        c.pointee.position = spa_point(x: Int32(cursor.x), y: Int32(cursor.y))
        c.pointee.hotspot = spa_point(x: Int32(cursor.hotspotX), y: Int32(cursor.hotspotY))
        c.pointee.bitmap_offset = 0
        guard includeBitmap, let bitmap = cursor.bitmap else { return }
        let bitmapOffset = MemoryLayout<spa_meta_cursor>.size
        let header = MemoryLayout<spa_meta_bitmap>.size
        guard bitmapOffset + header + bitmap.rgba.count <= Int(meta.pointee.size),
              bitmap.rgba.count == bitmap.width * bitmap.height * 4 else { return }
        c.pointee.bitmap_offset = UInt32(bitmapOffset)
        let bm = base.advanced(by: bitmapOffset).assumingMemoryBound(to: spa_meta_bitmap.self)
        bm.pointee.format = SPA_VIDEO_FORMAT_RGBA.rawValue
        bm.pointee.size = spa_rectangle(width: UInt32(bitmap.width), height: UInt32(bitmap.height))
        bm.pointee.stride = Int32(bitmap.width * 4)
        bm.pointee.offset = UInt32(header)
        // Premultiplied, as mutter and KWin write it (see `readBitmap`).
        let pixels = base.advanced(by: bitmapOffset + header).assumingMemoryBound(to: UInt8.self)
        for i in stride(from: 0, to: bitmap.rgba.count, by: 4) {
            let a = bitmap.rgba[i + 3]
            pixels[i] = PremultipliedAlpha.premultiplied(bitmap.rgba[i], alpha: a)
            pixels[i + 1] = PremultipliedAlpha.premultiplied(bitmap.rgba[i + 1], alpha: a)
            pixels[i + 2] = PremultipliedAlpha.premultiplied(bitmap.rgba[i + 2], alpha: a)
            pixels[i + 3] = a
        }
    }

    /// `SPA_META_VideoCrop` as a rectangle, nil when absent, empty, or the whole frame.
    static func crop(_ buffer: UnsafeMutablePointer<spa_buffer>, width: Int, height: Int) -> PixelRect? {
        guard let m = spa_buffer_find_meta_data(buffer, SPA_META_VideoCrop.rawValue, MemoryLayout<spa_meta_region>.size) else {
            return nil
        }
        let r = m.assumingMemoryBound(to: spa_meta_region.self).pointee.region
        let rect = PixelRect(x: Int(r.position.x), y: Int(r.position.y), width: Int(r.size.width), height: Int(r.size.height))
        if rect.isEmpty || rect == PixelRect(x: 0, y: 0, width: width, height: height) { return nil }
        return rect
    }

    /// Writes `SPA_META_VideoCrop` (nil: the whole frame).
    static func writeCrop(_ rect: PixelRect?, width: Int, height: Int, into buffer: UnsafeMutablePointer<spa_buffer>) {
        guard let m = spa_buffer_find_meta_data(buffer, SPA_META_VideoCrop.rawValue, MemoryLayout<spa_meta_region>.size) else {
            return
        }
        let r = rect ?? PixelRect(x: 0, y: 0, width: width, height: height)
        m.assumingMemoryBound(to: spa_meta_region.self).pointee.region =
            spa_region(position: spa_point(x: Int32(r.x), y: Int32(r.y)),
                       size: spa_rectangle(width: UInt32(r.width), height: UInt32(r.height)))
    }
}
