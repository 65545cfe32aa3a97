import PortalCapture

extension ScreenRecorder {
    /// A recorder with the built-in sinks and the plugins `plugins` finds (the trusted plugin directories by
    /// default; nil loads none, for a recorder that only reports availability), asking through `provider`
    /// (usually `PortalScreenCastProvider()`, the desktop portal). Loading a plugin runs its code in this
    /// process. FFmpeg's libraries log errors
    /// only from then on (their default also prints encoder statistics on the app's standard error); call
    /// `EncoderSink.setLibraryLogLevel(_:)` afterwards for more.
    public static func standard(appID: String = "pwrecord", provider: any ScreenCastProvider,
                                plugins: PluginLoader? = PluginLoader(),
                                configure: (inout ScreenRecorderConfiguration) -> Void = { _ in }) -> ScreenRecorder {
        EncoderSink.setLibraryLogLevel(.error)
        var registry = SinkRegistry.standard()
        if let plugins { _ = registry.registerPlugins(from: plugins) }
        var configuration = ScreenRecorderConfiguration(provider: provider, sinks: registry)
        configure(&configuration)
        return ScreenRecorder(appID: appID, configuration: configuration)
    }
}
