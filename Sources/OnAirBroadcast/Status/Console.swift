import Foundation

/// Messages for the person at the terminal: progress on stdout, problems on stderr.
enum Console {
    static func info(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    static func error(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }
}
