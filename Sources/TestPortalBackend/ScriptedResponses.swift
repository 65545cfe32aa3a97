/// One-shot scripted answers: per method, plus one for "the next call of any method" (`*`). A method's own
/// entry wins over `*`; each entry is used once.
struct ScriptedResponses: Sendable {
    private var byMethod: [PortalMethod: ResponseMode] = [:]
    private var any: ResponseMode?

    /// Scripts the next call of `method`, or of any method when `method` is nil.
    mutating func set(_ mode: ResponseMode, for method: PortalMethod?) {
        if let method { byMethod[method] = mode } else { any = mode }
    }

    /// The scripted answer for this call of `method`, consumed; nil when none is scripted.
    mutating func take(for method: PortalMethod) -> ResponseMode? {
        if let mode = byMethod.removeValue(forKey: method) { return mode }
        defer { any = nil }
        return any
    }
}
