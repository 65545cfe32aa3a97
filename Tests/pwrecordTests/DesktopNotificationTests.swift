import Foundation
import Glibc
import Testing
import PortalCapture
import PortalTestSupport

/// The desktop notification `pwrecord record` shows through `org.freedesktop.Notifications`, against a fake
/// notification service on the test desktop's bus. Each test holds the backend lease: it records through
/// the shared portal backend, and the fake service must be the only one while it runs.
@Suite("pwrecord record's desktop notification", .enabled(if: TestDesktop.isAvailable), .serialized)
struct DesktopNotificationTests {
    @Test("a notification is shown while recording and closed when the recording ends")
    func shownWhileRecordingThenClosed() async throws {
        let home = try TestHome()
        defer { home.remove() }
        let out = home.root.appendingPathComponent("n.mkv")
        let (notification, liveStreams, closedWhileRecording, service, result) = try await TestPortalControl.exclusively { control in
            let service = try await FakeNotificationService.start()
            let recording = try PwrecordProcess(["record", "-o", out.path, "--cursor", "hidden"], environment: home.env)
            let notification = try await service.firstNotification(within: .seconds(30))
            // Still recording at this point: the backend streams to it and nothing was closed yet.
            let liveStreams = try await control.stat("live_streams")
            let closedWhileRecording = service.closedIDs
            recording.send(SIGINT)
            let result = await recording.wait(timeout: 30)
            await service.stop()
            return (notification, liveStreams, closedWhileRecording, service, result)
        }
        #expect(result.status == 0, "\(result.stderr)")
        let shown = try #require(notification, "no Notify arrived while recording")
        #expect(shown.appName == "pwrecord")
        #expect(shown.summary.localizedCaseInsensitiveContains("recording"), "summary: \(shown.summary)")
        #expect(!shown.body.isEmpty)
        #expect(liveStreams >= 1, "the notification came when nothing was recording")
        #expect(closedWhileRecording.isEmpty)
        #expect(service.notifications.count == 1)
        #expect(service.closedIDs == [shown.id], "the notification should be closed once at the end: \(service.calls)")
        #expect(try MediaTool.probe(out.path).contains { $0.type == "video" })
    }

    @Test("a recording that ends by its --duration closes its notification too, after showing it")
    func closedAfterDuration() async throws {
        let home = try TestHome()
        defer { home.remove() }
        let out = home.root.appendingPathComponent("d.mkv")
        let (service, result) = try await TestPortalControl.exclusively { _ in
            let service = try await FakeNotificationService.start()
            let result = try await Pwrecord.run(["record", "-o", out.path, "--duration", "1"], environment: home.env)
            await service.stop()
            return (service, result)
        }
        #expect(result.status == 0, "\(result.stderr)")
        let shown = try #require(service.notifications.first)
        #expect(service.calls == [.notify(shown), .close(shown.id)])
        #expect(FileManager.default.fileExists(atPath: out.path))
    }

    @Test("without a notification service the recording works and nothing is reported")
    func noServiceIsNotAnError() async throws {
        let home = try TestHome()
        defer { home.remove() }
        let out = home.root.appendingPathComponent("quiet.mkv")
        let (owner, result) = try await TestPortalControl.exclusively { control in
            let owner = try await control.bus.nameOwner(FakeNotificationService.busName)
            return (owner, try await Pwrecord.run(["record", "-o", out.path, "--duration", "1"], environment: home.env))
        }
        #expect(owner == nil, "the test bus should have no notification service")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stderr.contains("error"), "\(result.stderr)")
        #expect(!result.stderr.localizedCaseInsensitiveContains("notif"), "\(result.stderr)")
        #expect(FileManager.default.fileExists(atPath: out.path))
    }

    @Test("a notification service that refuses is not an error either, and nothing is closed")
    func failingServiceIsNotAnError() async throws {
        let home = try TestHome()
        defer { home.remove() }
        let out = home.root.appendingPathComponent("refused.mkv")
        let (service, result) = try await TestPortalControl.exclusively { _ in
            let service = try await FakeNotificationService.start(.failing)
            let result = try await Pwrecord.run(["record", "-o", out.path, "--duration", "1"], environment: home.env)
            await service.stop()
            return (service, result)
        }
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stderr.contains("error"), "\(result.stderr)")
        #expect(service.notifications.count == 1, "Notify should have been tried once: \(service.calls)")
        #expect(service.closedIDs.isEmpty)
        #expect(FileManager.default.fileExists(atPath: out.path))
    }
}
