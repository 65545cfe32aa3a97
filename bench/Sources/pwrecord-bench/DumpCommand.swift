import Foundation
import Plugins
import Synchronization

/// `pwrecord-bench dump`: `--frames N` frames captured from a node (a `VideoCaptureStream`, as the recorder
/// reads them) written one after the other to `--output FILE` as raw BGRx rows, `width * 4` bytes each, for
/// the ffmpeg CLI peer of the encoder benchmark (`ffmpeg -f rawvideo -pix_fmt bgr0 -s WxH -r FPS -i FILE`).
/// So ffmpeg encodes the very pixels our encoder gets. Prints `dumped N WxH` when done.
struct DumpCommand {
    static let usage = "dump --node ID --frames N --output FILE"

    let node: UInt32
    let frames: Int
    let output: String

    init(_ arguments: [String]) throws(BenchError) {
        let a = try BenchArguments(arguments, valued: ["node", "frames", "output"])
        guard let text = a.string("node"), let node = UInt32(text) else { throw .usage("--node ID is required (a PipeWire node id)") }
        guard let output = a.string("output") else { throw .usage("--output FILE is required") }
        self.node = node
        self.output = output
        frames = try a.int("frames", default: 600, in: 1...100_000)
    }

    func run() async throws(BenchError) {
        let fd = open(output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard fd >= 0 else { throw .failed("cannot create \(output): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        let state = Mutex<(written: Int, size: (Int, Int)?, error: String?)>((0, nil, nil))
        let wanted = frames
        let core: PipeWireCore
        do { core = try PipeWireCore(name: "pwrecord-bench-dump") } catch { throw .setup("cannot connect to PipeWire: \(error)") }
        defer { core.close() }
        let stream: VideoCaptureStream
        do {
            stream = try VideoCaptureStream(core: core, target: .node(id: node)) { frame in
                guard state.withLock({ $0.written < wanted && $0.error == nil }) else { return }
                let row = frame.format.width * 4
                var failure: String?
                for y in 0..<frame.format.height {
                    var offset = 0
                    let base = frame.storage.bytes.advanced(by: y * frame.stride)
                    while offset < row {
                        let n = write(fd, base.advanced(by: offset), row - offset)
                        if n < 0 && errno == EINTR { continue }
                        guard n > 0 else { failure = String(cString: strerror(errno)); break }
                        offset += n
                    }
                    if failure != nil { break }
                }
                state.withLock { s in
                    if let failure { s.error = failure } else { s.written += 1 }
                    s.size = (frame.format.width, frame.format.height)
                }
            }
        } catch {
            throw .setup("cannot capture node \(node): \(error)")
        }
        defer { stream.stop() }
        let deadline = ProcessMeasures.monotonicSeconds() + 30 + Double(frames) / 10
        while true {
            let s = state.withLock { $0 }
            if let error = s.error { throw .failed("writing \(output): \(error)") }
            if s.written >= wanted, let size = s.size {
                Output.line("dumped \(s.written) \(size.0)x\(size.1)")
                return
            }
            if ProcessMeasures.monotonicSeconds() > deadline { throw .failed("only \(s.written) of \(wanted) frames from node \(node)") }
            try? await Task.sleep(for: .milliseconds(20))
        }
    }
}
