import PortalCapture

extension DBusObjectPath {
    /// A path written in a test: valid by construction.
    init(testConstant: StaticString) {
        do { try self.init("\(testConstant)") } catch { preconditionFailure("bad object path \(testConstant): \(error)") }
    }
}
