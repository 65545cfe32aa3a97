import Foundation

/// Lines on standard output, written at once (unbuffered), so a script reading a pipe sees each line when
/// it is printed.
enum Output {
    static func line(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }
}
