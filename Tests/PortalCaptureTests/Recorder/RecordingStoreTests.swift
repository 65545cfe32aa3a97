import Foundation
import Testing
@testable import PortalCapture

@Suite("The kept recording")
struct RecordingStoreTests {
    let base = FileManager.default.temporaryDirectory.appendingPathComponent("store-\(UUID().uuidString)")
    var store: RecordingStore { RecordingStore(root: base.appendingPathComponent("state/pwrecord/recordings")) }

    func info(_ app: String, created: Date = Date()) -> RecordingInfo {
        RecordingInfo(appID: app, fileName: "", created: created, duration: 2, videoFormat: nil, audioFormat: nil,
                      videoFrames: 60, droppedFrames: 0)
    }

    func pending(_ app: String, bytes: String) throws -> URL {
        let url = try store.makePendingFile(for: app, fileExtension: "mkv")
        try Data(bytes.utf8).write(to: url)
        return url
    }

    func mode(_ path: String) throws -> Int {
        try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
    }

    @Test("a kept recording is private: file 0600 in a 0700 directory")
    func keptRecordingIsPrivate() throws {
        let rec = try store.keep(try pending("app", bytes: "one"), info: info("app"))
        #expect(try mode(rec.file.path) == 0o600)
        #expect(try mode(rec.file.deletingLastPathComponent().path) == 0o700)
        #expect(store.kept(for: "app") == rec)
    }

    @Test("a store in a folder of the user's leaves that folder's permissions alone")
    func storeLeavesTheFolderAboveAlone() throws {
        let shared = base.appendingPathComponent("Videos")
        try FileManager.default.createDirectory(at: shared, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o755])
        let existingRoot = RecordingStore(root: shared)
        _ = try existingRoot.keep(try existingRoot.makePendingFile(for: "app", fileExtension: "mkv"), info: info("app"))
        #expect(try mode(shared.path) == 0o755)
        #expect(try mode(shared.appendingPathComponent("app").path) == 0o700)
        let newRoot = RecordingStore(root: shared.appendingPathComponent("Game"))
        _ = try newRoot.makePendingFile(for: "app", fileExtension: "mkv")
        #expect(try mode(shared.path) == 0o755)
        #expect(try mode(newRoot.root.path) == 0o700)
    }

    @Test("keeping a new recording replaces the previous one")
    func newRecordingReplacesPrevious() throws {
        let first = try store.keep(try pending("app", bytes: "one"), info: info("app", created: Date(timeIntervalSince1970: 1000)))
        let second = try store.keep(try pending("app", bytes: "two"), info: info("app", created: Date(timeIntervalSince1970: 2000)))
        #expect(!FileManager.default.fileExists(atPath: first.file.path))
        #expect(try String(contentsOf: store.kept(for: "app")!.file, encoding: .utf8) == "two")
        #expect(store.kept(for: "app") == second)
    }

    @Test("a pending recording does not touch the kept one until it is kept")
    func pendingLeavesKeptAlone() throws {
        _ = try store.keep(try pending("app", bytes: "one"), info: info("app"))
        let p = try pending("app", bytes: "two")
        #expect(try String(contentsOf: store.kept(for: "app")!.file, encoding: .utf8) == "one")
        store.removePending(p)
        #expect(try String(contentsOf: store.kept(for: "app")!.file, encoding: .utf8) == "one")
    }

    @Test("info.json naming a file outside the app's folder is no kept recording: discard deletes nothing there")
    func infoNamingAnotherFolderIsIgnored() throws {
        _ = try store.keep(try pending("app", bytes: "one"), info: info("app"))
        let victim = store.root.appendingPathComponent("victim")
        try Data("mine".utf8).write(to: victim)
        let infoFile = store.root.appendingPathComponent("app/info.json")
        let text = try String(contentsOf: infoFile, encoding: .utf8)
        let name = try #require(store.kept(for: "app")).file.lastPathComponent
        try Data(text.replacingOccurrences(of: name, with: "../victim").utf8).write(to: infoFile)
        #expect(store.kept(for: "app") == nil)
        #expect(!store.discard(appID: "app"))
        #expect(FileManager.default.fileExists(atPath: victim.path))
    }

    @Test("a new kept recording removes the app's other recordings, even one whose info.json was unreadable")
    func keepingRemovesStrays() throws {
        let first = try store.keep(try pending("app", bytes: "one"), info: info("app"))
        try Data("{ not json".utf8).write(to: store.root.appendingPathComponent("app/info.json"))
        #expect(store.kept(for: "app") == nil)
        let second = try store.keep(try pending("app", bytes: "two"), info: info("app"))
        #expect(!FileManager.default.fileExists(atPath: first.file.path), "the first recording would stay on disk, seen by nothing")
        let left = try FileManager.default.contentsOfDirectory(atPath: store.root.appendingPathComponent("app").path)
            .filter { $0.hasPrefix("recording-") }
        #expect(left == [second.file.lastPathComponent])
    }

    @Test("saving the kept recording while it is being recorded is refused")
    func savingWhileRecordingIsRefused() throws {
        var recording = info("app")
        recording.inProgress = true
        let rec = try store.keep(try pending("app", bytes: "half"), info: recording)
        let lock = try store.lock(appID: "app")
        let dest = base.appendingPathComponent("copy.mkv")
        #expect(throws: RecordingError.self) { try rec.save(to: dest) }
        #expect(!FileManager.default.fileExists(atPath: dest.path))
        lock.release()
        try rec.save(to: dest)
        #expect(try String(contentsOf: dest, encoding: .utf8) == "half")
    }

    @Test("save copies atomically and never overwrites unless asked")
    func saveNeverOverwritesUnlessAsked() throws {
        let rec = try store.keep(try pending("app", bytes: "movie"), info: info("app"))
        let dest = base.appendingPathComponent("out.mkv")
        try rec.save(to: dest)
        #expect(try String(contentsOf: dest, encoding: .utf8) == "movie")
        #expect(try mode(dest.path) == 0o600)
        try Data("other".utf8).write(to: dest)
        #expect(throws: RecordingError.filePermissions(path: dest.path, reason: "the file exists (to replace it: `overwrite`, or pwrecord's --force)")) {
            try rec.save(to: dest)
        }
        #expect(try String(contentsOf: dest, encoding: .utf8) == "other")
        try rec.save(to: dest, overwrite: true)
        #expect(try String(contentsOf: dest, encoding: .utf8) == "movie")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: base.path).filter { $0.contains("partial") }
        #expect(leftovers.isEmpty)
    }

    @Test("saving onto a folder says it is a folder and suggests a file name, with or without overwrite")
    func saveOntoFolderNamesIt() throws {
        let rec = try store.keep(try pending("app", bytes: "movie"), info: info("app"))
        let folder = base.appendingPathComponent("videos")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for overwrite in [false, true] {
            #expect(throws: RecordingError.filePermissions(path: folder.path, reason: "it is a folder; give a file name, e.g. \(folder.path)/recording.mkv")) {
                try rec.save(to: folder, overwrite: overwrite)
            }
        }
    }

    @Test("save never writes through a file or symlink planted where its temporary file could be guessed")
    func saveIgnoresPlantedNames() throws {
        let rec = try store.keep(try pending("app", bytes: "movie"), info: info("app"))
        let shared = base.appendingPathComponent("shared")
        try FileManager.default.createDirectory(at: shared, withIntermediateDirectories: true)
        let victim = base.appendingPathComponent("victim.txt")
        try Data("precious".utf8).write(to: victim)
        // What an attacker sharing the folder would plant: the names a save used to write to (the process id
        // is public), as a symlink to the victim's file and as a file the attacker owns.
        let dest = shared.appendingPathComponent("out.mkv")
        try FileManager.default.createSymbolicLink(atPath: shared.appendingPathComponent(".out.mkv.pwrecord-\(getpid())").path,
                                                   withDestinationPath: victim.path)
        try Data().write(to: shared.appendingPathComponent("out.partial-000000.mkv"))
        try rec.save(to: dest)
        #expect(try String(contentsOf: victim, encoding: .utf8) == "precious")
        #expect(try String(contentsOf: dest, encoding: .utf8) == "movie")
        #expect(try mode(dest.path) == 0o600)
        var st = stat()
        #expect(lstat(dest.path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFREG && st.st_uid == geteuid())
    }

    @Test("discard deletes the kept recording")
    func discardDeletes() throws {
        let rec = try store.keep(try pending("app", bytes: "x"), info: info("app"))
        rec.discard()
        #expect(store.kept(for: "app") == nil)
        #expect(!FileManager.default.fileExists(atPath: rec.file.path))
    }

    @Test("an app id that could escape the store is refused")
    func badAppIDIsRefused() {
        #expect(throws: RecordingError.self) { _ = try store.directory(for: "../x") }
    }
}
