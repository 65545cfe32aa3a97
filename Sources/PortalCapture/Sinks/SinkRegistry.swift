/// The sinks a recorder or the CLI can create, by id, and the policy's allow list that every creation goes
/// through. A value: build one (e.g. `SinkRegistry.standard()` in `Plugins`), inject it; there is no global.
public struct SinkRegistry: Sendable {
    /// Registered factories in registration order (built-ins first, then plugins).
    public private(set) var factories: [SinkFactory]
    /// The policy's allowed-sinks list, enforced by `makeSink` and `authorize`.
    public var allowed: SinkAllowList

    public init(factories: [SinkFactory] = [], allowed: SinkAllowList = .all) {
        self.factories = []
        self.allowed = allowed
        for f in factories where !self.factories.contains(where: { $0.id == f.id }) { self.factories.append(f) }
    }

    /// Adds a factory. An id already registered is refused (`unsupported`), so a plugin cannot shadow a
    /// built-in.
    public mutating func register(_ factory: SinkFactory) throws(SinkError) {
        guard SinkSpec.isValidID(factory.id) else {
            throw .unsupported(sink: factory.id, reason: "a sink id is lowercase letters, digits, '-' and '_'")
        }
        if let existing = factories.first(where: { $0.id == factory.id }) {
            throw .unsupported(sink: factory.id, reason:
                "a sink with this id is already registered (\(existing.origin)); rename the new one")
        }
        factories.append(factory)
    }

    /// The registered ids, in order.
    public var ids: [String] { factories.map(\.id) }

    /// The factory for `id`, or `unknownSink`.
    public func factory(for id: String) throws(SinkError) -> SinkFactory {
        guard let f = factories.first(where: { $0.id == id }) else {
            throw .unknownSink(id: id, known: ids)
        }
        return f
    }

    /// Throws `notAllowed` unless the policy permits `id`. For sinks built directly in code and fed outside a
    /// `ScreenRecorder` (a `DeliveryQueue` or `CapturePipeline` of your own), call this before using the sink.
    public func authorize(_ id: String) throws(SinkError) {
        guard allowed.permits(id) else { throw .notAllowed(id: id) }
    }

    /// Creates the sink a spec names: unknown ids give `unknownSink`, ids the policy excludes give
    /// `notAllowed` (checked before the spec's options, so a refused sink reveals nothing), unknown options
    /// or bad values give `invalidOption` naming the sink and the option.
    /// Under an allow list, a sink must also be root's (`SinkFactory.installedByRoot`): `notAllowed` names
    /// the user's plugin otherwise.
    public func makeSink(_ spec: SinkSpec) throws(SinkError) -> any CaptureSink {
        let f = try factory(for: spec.id)
        try authorize(spec.id)
        if case .only = allowed, !f.installedByRoot { throw .notAllowed(id: spec.id, userPlugin: f.origin) }
        var given: [String: String] = [:]
        for (k, v) in spec.options { given[k] = v }
        let options = try SinkOptions(sink: spec.id, given: given, declared: f.options)
        return try f.make(options)
    }

    /// Parses `text` (`encoder:container=mkv,crf=23`) and creates the sink.
    public func makeSink(_ text: String) throws(SinkError) -> any CaptureSink {
        try makeSink(SinkSpec(parsing: text))
    }
}
