import PortalCapture

/// Where the CLI gets consent and streams from: the desktop portal on the session bus.
enum Providers {
    static func screenCast() -> any ScreenCastProvider {
        PortalScreenCastProvider()
    }
}
