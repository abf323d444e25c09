import Foundation

/// `broadcast stop --room 42`: ends the broadcast of a room that another `broadcast start` on
/// this machine runs. The running process is sent SIGTERM (it DELETEs its WHIP session, prints
/// its summary and exits 0); if it is gone but left its session behind, the DELETE is sent here.
public enum BroadcastStopper {
    /// Alive and not a zombie: a process that exited but whose parent has not reaped it yet
    /// still answers kill(pid, 0); /proc/<pid>/stat says 'Z' for it.
    static func isRunning(_ pid: Int32) -> Bool {
        guard kill(pid, 0) == 0 else { return false }
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return true }
        let state = stat[stat.index(after: close)...].drop { $0 == " " }.first
        return state != "Z" && state != "X"
    }

    public static func stop(room: String, stateDirectory: String, token: String?, timeout: Double = 10) async -> Int32 {
        guard let state = BroadcastStateFile.read(directory: stateDirectory, room: room) else {
            Console.error("broadcast: no broadcast of room \(room) is running here (nothing in \(stateDirectory))")
            return 1
        }
        if isRunning(state.pid) {
            kill(state.pid, SIGTERM)
            let until = Date().addingTimeInterval(timeout)
            while Date() < until {
                if !isRunning(state.pid) {
                    Console.info("broadcast: stopped room \(room) (process \(state.pid))")
                    return 0
                }
                try? await Task.sleep(for: .milliseconds(50))
            }
            Console.error("broadcast: process \(state.pid) did not exit within \(Int(timeout)) s; DELETEing its session")
        }
        let client = WHIPClient()
        let status = await client.delete(location: state.location, token: token)
        await client.shutdown()
        try? FileManager.default.removeItem(atPath: BroadcastStateFile.path(directory: stateDirectory, room: room))
        switch status {
        case .some(let code) where code < 300:
            Console.info("broadcast: ended the WHIP session \(state.location)")
            return 0
        case .some(404):
            Console.info("broadcast: the session was already gone")
            return 0
        case .some(let code):
            Console.error("broadcast: DELETE \(state.location) answered HTTP \(code)")
            return 6
        case .none:
            Console.error("broadcast: cannot reach \(state.location) to end the session")
            return 3
        }
    }
}
