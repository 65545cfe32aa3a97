/// The sinks that come with pwrecord, for a `SinkRegistry`.
public enum BuiltInSinks {
    /// `encoder`, `raw`, `frames` and `null`. (`callback` needs a closure: register
    /// `CallbackSink.factory(handler:)` where there is one.)
    public static var factories: [SinkFactory] {
        [EncoderSink.factory, RawVideoSink.factory, FramesSink.factory, NullSink.factory]
    }
}

extension SinkRegistry {
    /// A registry with the built-in sinks, enforcing `allowed` (the policy's allowed-sinks list). Add
    /// plugins with `registerPlugins(from: PluginLoader())`.
    public static func standard(allowed: SinkAllowList = .all) -> SinkRegistry {
        SinkRegistry(factories: BuiltInSinks.factories, allowed: allowed)
    }
}
