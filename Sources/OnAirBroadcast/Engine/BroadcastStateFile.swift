import Foundation

/// `<state dir>/room-<room>.json`: which process broadcasts a room and its WHIP session URL, so
/// `broadcast stop --room 42` from another shell can end it (SIGTERM to the process, which
/// DELETEs its session; or the DELETE itself when the process is gone). Holds no token.
struct BroadcastStateFile {
    let path: String

    struct Contents: Codable {
        var pid: Int32
        var location: String
        var whipURL: String
        var room: String
    }

    static func path(directory: String, room: String) -> String {
        let safe = room.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? $0 : "_" }
        return directory + "/room-" + String(safe) + ".json"
    }

    static func write(directory: String, room: String, location: String, whipURL: String) -> BroadcastStateFile? {
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                 attributes: [.posixPermissions: 0o700])
        let path = path(directory: directory, room: room)
        let contents = Contents(pid: getpid(), location: location, whipURL: whipURL, room: room)
        guard let data = try? JSONEncoder().encode(contents),
              FileManager.default.createFile(atPath: path, contents: data, attributes: [.posixPermissions: 0o600]) else {
            return nil
        }
        return BroadcastStateFile(path: path)
    }

    static func read(directory: String, room: String) -> Contents? {
        guard let data = FileManager.default.contents(atPath: path(directory: directory, room: room)) else { return nil }
        return try? JSONDecoder().decode(Contents.self, from: data)
    }

    /// Removes the file if it is still ours (a newer broadcast of the room may have replaced it).
    func remove() {
        guard let data = FileManager.default.contents(atPath: path),
              let contents = try? JSONDecoder().decode(Contents.self, from: data), contents.pid == getpid() else { return }
        try? FileManager.default.removeItem(atPath: path)
    }
}
