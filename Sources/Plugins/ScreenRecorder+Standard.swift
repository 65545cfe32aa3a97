import PortalCapture

extension ScreenRecorder {
    /// A recorder with the built-in sinks and plugins from the trusted plugin directories, asking through
    /// `provider` (usually `PortalScreenCastProvider()`, the desktop portal).
    public static func standard(appID: String = "pwrecord", provider: any ScreenCastProvider,
                                configure: (inout ScreenRecorderConfiguration) -> Void = { _ in }) -> ScreenRecorder {
        var registry = SinkRegistry.standard()
        _ = registry.registerPlugins(from: PluginLoader())
        var configuration = ScreenRecorderConfiguration(provider: provider, sinks: registry)
        configure(&configuration)
        return ScreenRecorder(appID: appID, configuration: configuration)
    }
}
