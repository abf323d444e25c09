import CLiveFFmpeg

/// A libav* failure with the library's own message (`av_strerror`).
public struct FFmpegError: Error, CustomStringConvertible, Sendable {
    public let operation: String
    public let code: Int32
    public let message: String

    public init(_ operation: String, code: Int32) {
        self.operation = operation
        self.code = code
        var buffer = [CChar](repeating: 0, count: 256)
        let text = buffer.withUnsafeMutableBufferPointer { pointer -> String in
            _ = clive_av_err2str(code, pointer.baseAddress, pointer.count)
            return String(cString: pointer.baseAddress!)
        }
        message = text
    }

    public init(_ operation: String, message: String) {
        self.operation = operation
        self.code = 0
        self.message = message
    }

    public var description: String { "\(operation): \(message)" }

    /// Throws for a negative libav return value.
    @discardableResult
    public static func check(_ result: Int32, _ operation: @autoclosure () -> String) throws(FFmpegError) -> Int32 {
        if result < 0 { throw FFmpegError(operation(), code: result) }
        return result
    }
}
