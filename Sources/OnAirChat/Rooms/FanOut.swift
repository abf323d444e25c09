import NIOCore

/// The sockets of one room grouped by event loop, so that a message costs one task hop per
/// event loop (not per client): every socket of a group is written inside one
/// `EventLoop.execute`, in a plain loop with the same `ByteBuffer`. Owned by the room's
/// worker task alone (not Sendable on purpose).
struct FanOut {
    private struct Group {
        let loop: any EventLoop
        var outlets: [ChatOutlet] = []
    }

    private var groups: [ObjectIdentifier: Group] = [:]
    /// Where each member sits: its group and index, for O(1) removal (swap with the last).
    private var places: [UInt64: (group: ObjectIdentifier, index: Int)] = [:]

    var count: Int { places.count }

    mutating func add(_ outlet: ChatOutlet) {
        guard places[outlet.id] == nil else { return }
        let key = ObjectIdentifier(outlet.eventLoop)
        var group = groups[key] ?? Group(loop: outlet.eventLoop)
        places[outlet.id] = (key, group.outlets.count)
        group.outlets.append(outlet)
        groups[key] = group
    }

    mutating func remove(_ id: UInt64) {
        guard let place = places.removeValue(forKey: id), var group = groups[place.group] else { return }
        let lastIndex = group.outlets.count - 1
        if place.index != lastIndex {
            let moved = group.outlets[lastIndex]
            group.outlets[place.index] = moved
            places[moved.id] = (place.group, place.index)
        }
        group.outlets.removeLast()
        groups[place.group] = group.outlets.isEmpty ? nil : group
    }

    /// Sends `payload` to every member.
    func broadcast(_ payload: ByteBuffer) {
        for group in groups.values {
            let outlets = group.outlets
            group.loop.execute {
                for outlet in outlets { outlet.writeOnLoop(payload) }
            }
        }
    }
}
