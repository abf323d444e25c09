#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif
import Logging
import OnAirHLS
import Synchronization

/// The disk side of one recording: a fragmented MP4 file written from the
/// ``RecordingWriter`` queue only (every `var` here is touched there and nowhere else).
///
/// The file is the initialization segment followed by the stream's movie fragments, each
/// written whole as it is produced, so it is a playable MP4 at every moment: a relay that
/// dies mid-stream leaves every fragment written so far decodable, with no index to fix.
/// A clean end appends an 'mfra' index (ISO/IEC 14496-12 §8.8.9) for cheap seeking.
final class RecordingFile: @unchecked Sendable {
    // @unchecked: `descriptor`, `offset`, `randomAccess` and `failed` are only used on the
    // writer's serial queue; `pendingBytes` is atomic; the rest is immutable.
    let directory: String
    let baseName: String
    let logger: Logger
    /// Bytes handed to the queue and not yet written (read on the LL-HLS loop).
    let pendingBytes = Atomic<Int>(0)
    private(set) var path: String?
    private var descriptor: Int32 = -1
    private var offset: UInt64 = 0
    private var randomAccess: [MovieFragmentRandomAccessBox.Entry] = []
    private var failed = false

    init(directory: String, baseName: String, logger: Logger) {
        self.directory = directory
        self.baseName = baseName
        self.logger = logger
    }

    /// Creates the file (never overwriting one: `_2`, `_3`, ... are appended to the name).
    func create() {
        guard makeDirectory(directory) else {
            fail("cannot create the recording directory \(directory): \(errorText())")
            return
        }
        for attempt in 1...100 {
            let candidate = directory + "/" + baseName + (attempt == 1 ? "" : "_\(attempt)") + ".mp4"
            let fd = open(candidate, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            if fd >= 0 {
                descriptor = fd
                path = candidate
                logger.info("recording to \(candidate)")
                return
            }
            if errno != EEXIST { break }
        }
        fail("cannot create a recording file in \(directory): \(errorText())")
    }

    /// Appends `bytes`; a fragment that starts with a video IDR (`keyframeTime` is its
    /// decode time) is remembered for the index.
    func append(_ bytes: ArraySlice<UInt8>, keyframeTime: UInt64?) {
        defer { pendingBytes.wrappingSubtract(bytes.count, ordering: .relaxed) }
        guard !failed, descriptor >= 0 else { return }
        if let keyframeTime { randomAccess.append(.init(time: keyframeTime, moofOffset: offset)) }
        guard writeAll(bytes) else {
            fail("recording \(path ?? baseName) stopped: write failed: \(errorText())")
            return
        }
        offset += UInt64(bytes.count)
    }

    /// A clean end: the index, then fsync so the file survives a power cut as it is.
    func finish(videoTrackID: UInt32) {
        guard descriptor >= 0 else { return }
        if !failed {
            let index = MovieFragmentRandomAccessBox(tracks: [.init(trackID: videoTrackID, entries: randomAccess)])
            if !writeAll(index.serialized()[...]) { logger.warning("recording \(path ?? baseName): the index could not be written") }
            fsync(descriptor)
            logger.info("recording finished: \(path ?? baseName), \(offset) bytes")
        }
        close(descriptor)
        descriptor = -1
    }

    private func writeAll(_ bytes: ArraySlice<UInt8>) -> Bool {
        bytes.withUnsafeBytes { raw in
            var done = 0
            while done < raw.count {
                let n = write(descriptor, raw.baseAddress! + done, raw.count - done)
                if n < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                done += n
            }
            return true
        }
    }

    private func fail(_ message: String) {
        failed = true
        logger.error("\(message)")
    }

    private func errorText() -> String { String(cString: strerror(errno)) }

    /// `mkdir -p`.
    private func makeDirectory(_ path: String) -> Bool {
        var isDirectory = stat()
        if stat(path, &isDirectory) == 0 { return (isDirectory.st_mode & S_IFMT) == S_IFDIR }
        let parent = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        if !parent.isEmpty, parent != path { _ = makeDirectory(parent) }
        return mkdir(path, 0o755) == 0 || errno == EEXIST
    }
}
