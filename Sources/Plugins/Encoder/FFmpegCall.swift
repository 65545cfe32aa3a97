import CFFmpeg

/// Turns libav* status codes into `SinkError`s that name the failing call.
enum FFmpegCall {
    /// `av_strerror`'s text for `code`.
    static func message(_ code: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        if av_strerror(code, &buffer, buffer.count) != 0 { return "error \(code)" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Throws `failed(sink: "encoder", reason: "<call>: <message>")` when `code` is negative.
    @discardableResult
    static func check(_ code: Int32, _ call: @autoclosure () -> String) throws(SinkError) -> Int32 {
        if code < 0 { throw .failed(sink: "encoder", reason: "\(call()): \(message(code))") }
        return code
    }

    /// Sets a private option of a codec or muxer (`av_opt_set` with `AV_OPT_SEARCH_CHILDREN`).
    static func set(_ object: UnsafeMutableRawPointer?, _ key: String, _ value: String, for owner: String) throws(SinkError) {
        try check(av_opt_set(object, key, value, AV_OPT_SEARCH_CHILDREN), "av_opt_set(\(owner), \(key)=\(value))")
    }
}
