/// One chat room's mailbox. Everything that touches the room's members or message order is
/// a ``RoomCommand`` handled one at a time by the room's worker (``RoomWorker``), so the
/// member set has a single owner and ids reach every socket in order, without locks.
final class ChatRoom: Sendable {
    let id: String
    let commands: AsyncStream<RoomCommand>
    private let inbox: AsyncStream<RoomCommand>.Continuation

    /// The room's worker is gone (shutdown).
    struct Gone: Error {}

    init(id: String) {
        self.id = id
        (commands, inbox) = AsyncStream.makeStream(of: RoomCommand.self, bufferingPolicy: .unbounded)
    }

    /// Queues a command; false once the room has shut down.
    @discardableResult
    func submit(_ command: RoomCommand) -> Bool {
        if case .terminated = inbox.yield(command) { return false }
        return true
    }

    /// Queues a command that answers, and waits for the answer.
    func ask<Value: Sendable>(_ make: (Reply<Value>) -> RoomCommand) async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            if !submit(make(Reply(continuation: continuation))) { continuation.resume(throwing: Gone()) }
        }
    }

    /// No more commands: the worker finishes what is queued and ends.
    func finish() { inbox.finish() }
}
