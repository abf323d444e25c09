/// RFC 8853 §5.1 `a=simulcast:` value: "send h;m;l", "recv 1;~2", "send a,b;c recv d".
///
/// Each direction holds simulcast streams separated by ';'; each stream lists alternative rids
/// separated by ','; a leading '~' marks a stream that starts paused.
public struct SimulcastDescription: SDPAttributeValue {
    public static let attributeName = "simulcast"

    /// One rid of a simulcast stream alternative.
    public struct Stream: Sendable, Equatable {
        public var rid: String
        public var paused: Bool

        public init(rid: String, paused: Bool = false) {
            self.rid = rid
            self.paused = paused
        }

        var text: String { (paused ? "~" : "") + rid }
    }

    /// Streams the writer sends; each element lists alternatives.
    public var send: [[Stream]]
    /// Streams the writer receives; each element lists alternatives.
    public var receive: [[Stream]]

    public init(send: [[Stream]] = [], receive: [[Stream]] = []) {
        self.send = send
        self.receive = receive
    }

    public init(attributeValue: String) throws(SDPError) {
        let parts = SDPText.fields(attributeValue)
        guard parts.count == 2 || parts.count == 4 else {
            throw SDPError("a=simulcast must be send <list> and/or recv <list>")
        }
        var send: [[Stream]]? = nil
        var receive: [[Stream]]? = nil
        var index = 0
        while index + 1 < parts.count {
            let list = try Self.parseList(parts[index + 1])
            switch parts[index] {
            case "send" where send == nil: send = list
            case "recv" where receive == nil: receive = list
            default: throw SDPError("a=simulcast direction \"\(parts[index])\" must be send or recv, once each")
            }
            index += 2
        }
        self.init(send: send ?? [], receive: receive ?? [])
    }

    private static func parseList(_ text: Substring) throws(SDPError) -> [[Stream]] {
        var streams: [[Stream]] = []
        for alternatives in text.split(separator: ";", omittingEmptySubsequences: false) {
            var choice: [Stream] = []
            for item in alternatives.split(separator: ",", omittingEmptySubsequences: false) {
                let paused = item.hasPrefix("~")
                let rid = paused ? item.dropFirst() : item
                guard RIDDescription.isRIDID(rid) else {
                    throw SDPError("a=simulcast rid \"\(item)\" is not a valid rid-id")
                }
                choice.append(Stream(rid: String(rid), paused: paused))
            }
            streams.append(choice)
        }
        return streams
    }

    private static func listText(_ streams: [[Stream]]) -> String {
        streams.map { $0.map(\.text).joined(separator: ",") }.joined(separator: ";")
    }

    public var attributeValue: String {
        var pieces: [String] = []
        if !send.isEmpty { pieces.append("send " + Self.listText(send)) }
        if !receive.isEmpty { pieces.append("recv " + Self.listText(receive)) }
        return pieces.joined(separator: " ")
    }

    /// All rids of one direction, first alternative first.
    public static func rids(in streams: [[Stream]]) -> [String] {
        streams.flatMap { $0.map(\.rid) }
    }
}
