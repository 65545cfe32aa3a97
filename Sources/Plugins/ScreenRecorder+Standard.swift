import PortalCapture

extension ScreenRecorder {
    /// A recorder with the built-in sinks and plugins from the trusted plugin directories, asking through
    /// `provider` (usually `PortalScreenCastProvider()`, the desktop portal). FFmpeg's libraries log errors
    /// only from then on (their default also prints encoder statistics on the app's standard error); call
    /// `EncoderSink.setLibraryLogLevel(_:)` afterwards for more.
    public static func standard(appID: String = "pwrecord", provider: any ScreenCastProvider,
                                configure: (inout ScreenRecorderConfiguration) -> Void = { _ in }) -> ScreenRecorder {
        EncoderSink.setLibraryLogLevel(.error)
        var registry = SinkRegistry.standard()
        _ = registry.registerPlugins(from: PluginLoader())
        var configuration = ScreenRecorderConfiguration(provider: provider, sinks: registry)
        configure(&configuration)
        return ScreenRecorder(appID: appID, configuration: configuration)
    }
}
