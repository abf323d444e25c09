import Foundation

/// Checks the `hls.record_directory` at start, so that a typo or a read-only disk is an
/// error when the relay starts rather than a log line at the first stream.
enum RecordingDirectory {
    struct Problem: Error, CustomStringConvertible {
        let description: String
    }

    /// Creates the directory if needed and proves that files can be created in it.
    static func prepare(_ path: String) throws {
        let files = FileManager.default
        do {
            try files.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw Problem(description: "hls.record_directory \(path) cannot be created: \(error.localizedDescription)")
        }
        let probe = (path as NSString).appendingPathComponent(".onair-write-test-\(getpid())")
        guard files.createFile(atPath: probe, contents: Data()) else {
            throw Problem(description: "hls.record_directory \(path) is not writable")
        }
        try? files.removeItem(atPath: probe)
    }
}
