import Glibc

/// Checks that UDP ports are free on 127.0.0.1 before a relay is started on them, so that a
/// busy port is named here instead of the relay exiting at start.
enum PortCheck {
    /// The first port of `ports` that cannot be bound, nil when all can.
    static func firstBusyUDP(_ ports: ClosedRange<Int>) -> Int? {
        ports.first { !canBindUDP(UInt16($0)) }
    }

    private static func canBindUDP(_ port: UInt16) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }
}
