import Foundation

/// Runs the `openssl` command-line tool, an implementation we did not write, to check our
/// certificates and to act as a DTLS peer.
enum OpenSSLCLI {
    static let path = "/usr/bin/openssl"

    static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: path) }

    /// Runs `openssl <arguments>` to completion, feeding `input` on stdin. Returns the exit
    /// status and stdout+stderr.
    static func run(_ arguments: [String], input: String = "") throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let stdin = Pipe()
        let stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stdout
        try process.run()
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try stdin.fileHandleForWriting.close()
        let data = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// A fresh temporary directory (caller removes it).
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("onair-dtls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
