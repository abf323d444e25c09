#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif
import Logging
import OnAirHLS

/// Records one live stream to a fragmented MP4 file (``RecordingFile``): the packager's
/// initialization segment once, then every part's movie fragment as it is published, so
/// the recording costs no muxing of its own and is playable at every moment.
///
/// Confined to the LL-HLS loop, which must never wait for the disk: writes go to the
/// ``RecordingWriter`` queue, bounded by `queueLimit` bytes. When the disk falls behind,
/// fragments are dropped (and counted) rather than queued without bound, and recording
/// resumes at the next part that starts with an IDR, so the file never holds P-frames
/// whose references are missing.
final class StreamRecorder {
    let file: RecordingFile
    private let writer: RecordingWriter
    private let queueLimit: Int
    private let videoTrackID: UInt32
    private let logger: Logger
    private var dropping = false
    private var finished = false
    /// Fragments left out because the queue was full.
    private(set) var droppedFragments = 0

    init(directory: String, room: String, startedAtUnixSeconds: Int, initializationSegment: [UInt8],
         videoTrackID: UInt32, queueLimit: Int, writer: RecordingWriter, logger: Logger) {
        self.writer = writer
        self.queueLimit = queueLimit
        self.videoTrackID = videoTrackID
        self.logger = logger
        file = RecordingFile(directory: directory, baseName: Self.baseName(room: room, unixSeconds: startedAtUnixSeconds),
                             logger: logger)
        let file = file
        file.pendingBytes.wrappingAdd(initializationSegment.count, ordering: .relaxed)
        writer.queue.async {
            file.create()
            file.append(initializationSegment[...], keyframeTime: nil)
        }
    }

    /// `<room>_<UTC start as yyyyMMdd'T'HHmmss'Z'>`: sorts by room, then by time. Room ids
    /// are letters, digits, '-', '_' and '.' only (``RoomID``), safe in a file name.
    static func baseName(room: String, unixSeconds: Int) -> String {
        var time = time_t(unixSeconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(room)_\(parts.tm_year + 1900)\(two(parts.tm_mon + 1))\(two(parts.tm_mday))T"
            + "\(two(parts.tm_hour))\(two(parts.tm_min))\(two(parts.tm_sec))Z"
    }

    /// Queues a published part's fragment. Returns false when it was dropped.
    @discardableResult
    func append(_ part: HLSPartialSegment) -> Bool {
        guard !finished else { return false }
        let startsWithKeyframe = part.isIndependent && part.leadSampleCount > 0
        if dropping && !startsWithKeyframe {
            droppedFragments += 1
            return false
        }
        let size = part.bytes.count
        if file.pendingBytes.load(ordering: .relaxed) + size > queueLimit {
            if !dropping {
                logger.warning("recording: the disk is behind by more than \(queueLimit) bytes; dropping fragments until it catches up",
                               metadata: ["file": "\(file.baseName)"])
            }
            dropping = true
            droppedFragments += 1
            return false
        }
        dropping = false
        file.pendingBytes.wrappingAdd(size, ordering: .relaxed)
        let file = file
        let bytes = part.bytes   // shares the packager's storage: no copy on the LL-HLS loop
        let time = startsWithKeyframe ? UInt64(part.startTicks) : nil
        writer.queue.async { file.append(bytes, keyframeTime: time) }
        return true
    }

    /// The stream ended (cleanly, by timeout, or at shutdown): index and close the file
    /// once everything queued before is written.
    func finish() {
        guard !finished else { return }
        finished = true
        let file = file
        let trackID = videoTrackID
        writer.queue.async { file.finish(videoTrackID: trackID) }
    }
}
