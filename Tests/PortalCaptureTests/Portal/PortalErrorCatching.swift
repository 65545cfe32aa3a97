import Testing
@testable import PortalCapture

/// The `PortalError` that `body` throws; nil when it succeeds (any other error is recorded as an issue).
func portalError(_ body: () async throws -> Void) async -> PortalError? {
    do {
        try await body()
        return nil
    } catch let error as PortalError {
        return error
    } catch {
        Issue.record("not a PortalError: \(error)")
        return nil
    }
}
