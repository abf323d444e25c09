/// A media socket bound at init and started later (``UDPMediaSocket``, ``TCPMediaListener``).
protocol BoundMediaSocket {
    var localPort: Int { get }
    func closeUnstarted()
}

extension UDPMediaSocket: BoundMediaSocket {}
extension TCPMediaListener: BoundMediaSocket {}
