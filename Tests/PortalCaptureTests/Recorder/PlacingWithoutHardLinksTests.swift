import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import PortalCapture
import PortalTestSupport

/// Saving and placing recordings on a file system without hard links (exFAT, as on a USB stick): `link` is
/// EPERM there, so the finished file is renamed into place instead, with the same rules (no overwrite unless
/// asked, nothing left behind). Needs root and a loop device (CI has both).
@Suite("Placing recordings where there are no hard links", .serialized, .enabled(if: ExFatVolume.canMount))
struct PlacingWithoutHardLinksTests {
    let base = FileManager.default.temporaryDirectory.appendingPathComponent("nolinks-\(UUID().uuidString)")

    func keptRecording(_ bytes: String) throws -> Recording {
        let store = RecordingStore(root: base.appendingPathComponent("state/pwrecord/recordings"))
        let pending = try store.makePendingFile(for: "app", fileExtension: "mkv")
        try Data(bytes.utf8).write(to: pending)
        return try store.keep(pending, info: RecordingInfo(appID: "app", fileName: "", created: Date(), duration: 2,
                                                           videoFormat: nil, audioFormat: nil, videoFrames: 60,
                                                           droppedFrames: 0))
    }

    /// Partial files and hidden names left on the volume. `.fuse_hidden*` is not one: it is how the FUSE
    /// driver keeps a file that was replaced while a descriptor to it is still open somewhere (in a full
    /// parallel run, a process another test started at that moment inherits the test's descriptors for a
    /// while: one appeared once for the file `replaced.mkv` replaced).
    func leftovers(_ volume: ExFatVolume) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: volume.mountPoint.path)
            .filter { ($0.contains("partial") || $0.hasPrefix(".")) && !$0.hasPrefix(".fuse_hidden") }
    }

    @Test("saving the kept recording onto exFAT works, refuses an existing file, and replaces it when asked")
    func saveOntoExFat() throws {
        let volume = try ExFatVolume()
        defer { volume.remove(); try? FileManager.default.removeItem(at: base) }
        var probe = stat()
        #expect(link(volume.mountPoint.path + "/none", volume.mountPoint.path + "/none2") != 0)
        let rec = try keptRecording("movie")
        let dest = volume.mountPoint.appendingPathComponent("saved.mkv")
        try rec.save(to: dest)
        #expect(try String(contentsOf: dest, encoding: .utf8) == "movie")
        #expect(lstat(dest.path, &probe) == 0 && probe.st_mode & 0o077 == 0, "mode \(String(probe.st_mode, radix: 8))")
        try Data("other".utf8).write(to: dest)
        #expect(throws: RecordingError.filePermissions(path: dest.path, reason: PrivateFile.existsReason)) {
            try rec.save(to: dest)
        }
        #expect(try String(contentsOf: dest, encoding: .utf8) == "other")
        try rec.save(to: dest, overwrite: true)
        #expect(try String(contentsOf: dest, encoding: .utf8) == "movie")
        let left = try leftovers(volume)
        #expect(left.isEmpty, "\(left)")
    }

    @Test("a recording written beside its -o destination on exFAT is placed by its descriptor, with and without --force")
    func placeByDescriptorOnExFat() throws {
        let volume = try ExFatVolume()
        defer { volume.remove() }
        for (name, overwrite, existing) in [("new.mkv", false, false), ("forced.mkv", true, false), ("replaced.mkv", true, true)] {
            let dest = volume.mountPoint.appendingPathComponent(name)
            if existing { try Data("old".utf8).write(to: dest) }
            let (partial, fd) = try PrivateFile.createBeside(dest)
            #expect(write(fd, "recorded", 8) == 8)
            let held = HeldDescriptor(fd, path: "/proc/self/fd/\(fd)", shownAs: partial.path)
            try held.place(partial, at: dest, overwrite: overwrite)
            held.close()
            #expect(try String(contentsOf: dest, encoding: .utf8) == "recorded", "\(name)")
        }
        // Without --force an existing destination stays, and so does the recording beside it.
        let taken = volume.mountPoint.appendingPathComponent("taken.mkv")
        try Data("mine".utf8).write(to: taken)
        let (partial, fd) = try PrivateFile.createBeside(taken)
        let held = HeldDescriptor(fd, path: "/proc/self/fd/\(fd)", shownAs: partial.path)
        #expect(throws: RecordingError.filePermissions(path: taken.path, reason: PrivateFile.existsReason)) {
            try held.place(partial, at: taken, overwrite: false)
        }
        held.close()
        #expect(try String(contentsOf: taken, encoding: .utf8) == "mine")
        #expect(FileManager.default.fileExists(atPath: partial.path))
        unlink(partial.path)
        let left = try leftovers(volume)
        #expect(left.isEmpty, "\(left)")
    }

    @Test("a screenshot onto exFAT is written without --force, refuses an existing file, and replaces it when asked")
    func screenshotOntoExFat() throws {
        let volume = try ExFatVolume()
        defer { volume.remove() }
        let dest = volume.mountPoint.appendingPathComponent("shot.png").path
        try ScreenshotFile.write(Array("picture".utf8), to: dest, replacing: false)
        #expect(try String(contentsOfFile: dest, encoding: .utf8) == "picture")
        #expect(throws: ScreenshotError.fileWriteFailed(path: dest, operation: "link", errno: EEXIST)) {
            try ScreenshotFile.write(Array("other".utf8), to: dest, replacing: false)
        }
        #expect(try String(contentsOfFile: dest, encoding: .utf8) == "picture")
        try ScreenshotFile.write(Array("newer".utf8), to: dest, replacing: true)
        #expect(try String(contentsOfFile: dest, encoding: .utf8) == "newer")
        let left = try leftovers(volume)
        #expect(left.isEmpty, "\(left)")
    }
}
