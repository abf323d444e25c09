import Foundation

/// Messages for the person at the terminal: progress on stdout, problems on stderr. A write that
/// fails (the reader of a pipe gone, as `| tee` after Ctrl-C) is dropped: Foundation's
/// non-throwing `write(_:)` would trap on EPIPE and end broadcast before its DELETE.
package enum Console {
    package static func info(_ text: String) {
        output(text + "\n")
    }

    package static func error(_ text: String) {
        try? FileHandle.standardError.write(contentsOf: Data((text + "\n").utf8))
    }

    /// Text as it is (no newline added): the status line rewrites itself in place.
    package static func output(_ text: String) {
        try? FileHandle.standardOutput.write(contentsOf: Data(text.utf8))
    }
}
