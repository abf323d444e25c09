import CLiveOpenSSL

/// An OpenSSL call failed. Carries the operation we attempted and the text of every entry that
/// was on OpenSSL's thread-local error queue, so a log line says *why*, not just *that*.
public struct OpenSSLError: Error, CustomStringConvertible, Sendable, Equatable {
    /// What we were doing, e.g. "EVP_EncryptInit_ex(aes-128-ctr)".
    public let operation: String
    /// One line per queued OpenSSL error, oldest first (may be empty).
    public let queue: [String]

    public init(operation: String, queue: [String]) {
        self.operation = operation
        self.queue = queue
    }

    public var description: String {
        queue.isEmpty ? "\(operation) failed" : "\(operation) failed: \(queue.joined(separator: "; "))"
    }

    /// Reads and clears the calling thread's OpenSSL error queue (ERR_get_error /
    /// ERR_error_string_n). Clearing matters: a stale entry would otherwise be blamed on the
    /// next, unrelated failure on this thread.
    public static func drain(_ operation: String) -> OpenSSLError {
        var lines: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            var buffer = [CChar](repeating: 0, count: 256)
            let text = buffer.withUnsafeMutableBufferPointer { raw -> String in
                ERR_error_string_n(code, raw.baseAddress, raw.count)
                return String(cString: raw.baseAddress!)
            }
            lines.append(text)
        }
        return OpenSSLError(operation: operation, queue: lines)
    }
}
