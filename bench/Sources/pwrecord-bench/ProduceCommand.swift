import Foundation
import PortalTestSupport

/// `pwrecord-bench produce`: a video source node in its own process, as a compositor makes one
/// (`VideoProducerStream`: a driver node with memfd buffers, painting `TestPattern` into each frame). Prints
/// `node <id>` once the node is registered, then keeps `--status FILE` up to date with
/// `<frames produced> <frames missed>` (every 50 ms, replaced atomically) until SIGTERM or SIGINT.
struct ProduceCommand {
    static let usage = "produce [--width 1920] [--height 1080] [--fps 60] [--status FILE]"

    let format: VideoFormat
    let statusFile: String?

    init(_ arguments: [String]) throws(BenchError) {
        let a = try BenchArguments(arguments, valued: ["width", "height", "fps", "status"])
        format = VideoFormat(pixelFormat: .bgrx,
                             width: try a.int("width", default: 1920, in: 16...8192),
                             height: try a.int("height", default: 1080, in: 16...8192),
                             frameRate: FrameRate(try a.int("fps", default: 60, in: 1...240)))
        statusFile = a.string("status")
    }

    func run() async throws(BenchError) {
        let signals = SignalWaiter()
        let core: PipeWireCore
        let producer: VideoProducerStream
        do {
            core = try PipeWireCore(name: "pwrecord-bench-producer")
            producer = try VideoProducerStream(
                core: core, options: VideoProducerOptions(format: format, nodeName: "pwrecord-bench-producer"),
                render: TestPattern.render)
        } catch {
            throw .setup("cannot create the producer node: \(error)")
        }
        let node: PipeWireNodeInfo
        do { node = try await producer.waitUntilReady(timeout: .seconds(10)) } catch {
            throw .setup("the producer node did not appear: \(error)")
        }
        Output.line("node \(node.id)")
        while true {
            writeStatus(produced: producer.framesProduced, missed: producer.framesMissed)
            if await signals.wait(upTo: 0.05) { break }
            if let cause = producer.endCause { throw .failed("the producer node ended: \(cause)") }
        }
        writeStatus(produced: producer.framesProduced, missed: producer.framesMissed)
        FileHandle.standardError.write(Data(
            "pwrecord-bench produce: \(producer.framesProduced) frames produced, \(producer.framesMissed) missed (no free buffer)\n".utf8))
        producer.stop()
        core.close()
    }

    private func writeStatus(produced: UInt64, missed: UInt64) {
        guard let statusFile else { return }
        let tmp = statusFile + ".tmp"
        guard (try? "\(produced) \(missed)\n".write(toFile: tmp, atomically: false, encoding: .utf8)) != nil else { return }
        rename(tmp, statusFile)
    }
}
