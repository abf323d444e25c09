import Synchronization

/// Which media worker each room's publisher lives on. An entry is made when a room's first
/// publisher is placed and removed when the room closes on its worker (its publisher and its
/// last viewer gone) or when the publisher's offer was refused: a relay serving rooms made at
/// run time keeps no entry for a room that is gone.
final class RoomPlacement: Sendable {
    private let workers = Mutex<[String: Int]>([:])

    /// The worker of `room`, if it is placed.
    func worker(of room: String) -> Int? { workers.withLock { $0[room] } }

    /// The worker of `room`: the one it is on, else `proposed` (two first publishers at once:
    /// the first to get here places the room).
    func place(_ room: String, proposed: Int) -> Int {
        workers.withLock { workers in
            if let known = workers[room] { return known }
            workers[room] = proposed
            return proposed
        }
    }

    /// `room` is on `worker` (again: an entry forgotten while its publisher was being made).
    func confirm(_ room: String, on worker: Int) { workers.withLock { $0[room] = worker } }

    /// `room` closed on `worker`.
    func forget(_ room: String, on worker: Int) {
        workers.withLock { workers in
            if workers[room] == worker { workers[room] = nil }
        }
    }

    var count: Int { workers.withLock { $0.count } }
}
