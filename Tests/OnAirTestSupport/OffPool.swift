import Foundation

/// Runs blocking work (a child process waited for, a server started) on a thread of its own,
/// not on the cooperative pool: the pool has a thread per core (two on a 2-core machine), and
/// a test that blocks one for seconds stalls every other test of the run, whose deadlines
/// then fire before their finished work gets a thread.
public enum OffPool {
    public static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try body() }) }.start()
        }
    }
}
