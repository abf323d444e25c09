/// A page of messages and whether more exist beyond it in the direction read (older for
/// `latest`/`before`, newer for `after`).
public struct MessagePage: Sendable, Equatable {
    public var messages: [ChatMessage]
    public var more: Bool

    public init(messages: [ChatMessage], more: Bool) {
        self.messages = messages
        self.more = more
    }
}
