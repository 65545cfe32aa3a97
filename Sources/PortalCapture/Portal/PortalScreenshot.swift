import Foundation

/// A screenshot from `org.freedesktop.portal.Screenshot`: the file the portal wrote (its `uri` result) and its bytes.
public struct PortalScreenshot: Sendable, Equatable {
    /// The `file://` URI the portal answered with.
    public let url: URL
    /// The file's contents, read before any removal (PNG with every backend known).
    public let data: Data
    /// True when the file lay in a temporary directory and was deleted after reading
    /// (``PortalScreenshotOptions/removeTemporaryFile``); ``url`` then no longer exists.
    public let removedFile: Bool

    public init(url: URL, data: Data, removedFile: Bool) {
        self.url = url
        self.data = data
        self.removedFile = removedFile
    }
}
