/// A reference to a value-type state machine, so that `#expect` and `#require` (which capture
/// their operands as constants) can drive its mutating methods:
/// `#expect(coalescer.request(now: t0))`. It forwards to the real machine; nothing is faked.
@dynamicMemberLookup
public final class Driven<Machine> {
    public var machine: Machine

    public init(_ machine: Machine) { self.machine = machine }

    public subscript<Value>(dynamicMember keyPath: KeyPath<Machine, Value>) -> Value { machine[keyPath: keyPath] }
}

