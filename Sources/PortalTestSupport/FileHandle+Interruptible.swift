import Foundation
import Glibc

/// Reads that survive signals. Foundation's `readDataToEndOfFile()` and `availableData` end the process with
/// a fatal error when `read` fails with `EINTR` (seen in a full test run: a signal reached a test thread while
/// it read a child's pipe), so test helpers read with these instead, which retry an interrupted `read`.
extension FileHandle {
    /// Everything up to end of file.
    public func readAllRetryingInterrupts() -> Data {
        var data = Data()
        while true {
            let chunk = readSomeRetryingInterrupts()
            if chunk.isEmpty { return data }
            data.append(chunk)
        }
    }

    /// What one `read` returns (waiting for at least one byte), empty at end of file or on a real error.
    public func readSomeRetryingInterrupts(upTo count: Int = 65_536) -> Data {
        var buffer = [UInt8](repeating: 0, count: count)
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fileDescriptor, $0.baseAddress, count) }
            if n > 0 { return Data(buffer[0..<n]) }
            if n < 0 && errno == EINTR { continue }
            return Data()
        }
    }
}
