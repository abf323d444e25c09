/// One `name=value` pair of an `a=fmtp` line (RFC 8866 §6.15), in the order written.
///
/// Some formats carry a bare value without '=' (RED's "111/111", RFC 2198): then `value` is
/// nil and `name` holds the text.
public struct FormatParameter: Sendable, Equatable, Hashable, CustomStringConvertible {
    public var name: String
    public var value: String?

    public init(_ name: String, _ value: String?) {
        self.name = name
        self.value = value
    }

    public var description: String {
        guard let value else { return name }
        return name + "=" + value
    }
}

extension Array where Element == FormatParameter {
    /// The value of the first parameter named `name`, compared case-insensitively as RFC 6184
    /// and RFC 7587 define their parameter names.
    public func value(for name: String) -> String? {
        first(where: { SDPText.equalsIgnoringCase($0.name, name) })?.value
    }

    /// The `a=fmtp` parameter text: pairs joined by ';'.
    public var formatParameterText: String {
        map(\.description).joined(separator: ";")
    }
}
