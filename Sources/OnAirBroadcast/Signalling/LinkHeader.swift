/// RFC 8288 §3 `Link` field values, as far as RFC 9725 §4.6 needs them: the ICE servers a WHIP
/// endpoint names with `rel="ice-server"`, with their `username` and `credential` parameters.
/// Robust to several fields, several comma-separated links per field, commas and semicolons
/// inside `<...>` and quoted strings, escapes in quoted strings (RFC 9110 §5.6.4), any case of
/// parameter names and spaces around `=`.
enum LinkHeader {
    /// One link: its target and its parameters (names lowercased, values unquoted).
    struct Link: Equatable {
        var target: String
        var parameters: [String: String]
    }

    /// The ICE servers among `fields` (each a `Link` field value), in order.
    static func iceServers(_ fields: [String]) -> [ICEServer] {
        fields.flatMap(parse).filter { link in
            link.parameters["rel"].map { $0.split(separator: " ").contains { $0.lowercased() == "ice-server" } } ?? false
        }.map { ICEServer(url: $0.target, username: $0.parameters["username"], credential: $0.parameters["credential"]) }
    }

    /// Every well-formed link of one field value; a malformed one is skipped up to the next comma.
    static func parse(_ field: String) -> [Link] {
        var links: [Link] = []
        var scanner = Array(field.unicodeScalars)[...]
        while !scanner.isEmpty {
            skip(&scanner) { $0 == " " || $0 == "\t" || $0 == "," }
            guard scanner.first == "<", let close = scanner.firstIndex(of: ">") else {
                skipToNextLink(&scanner)
                continue
            }
            var link = Link(target: String(String.UnicodeScalarView(scanner[(scanner.startIndex + 1)..<close])), parameters: [:])
            scanner = scanner[(close + 1)...]
            while true {
                skip(&scanner) { $0 == " " || $0 == "\t" }
                guard scanner.first == ";" else { break }
                scanner = scanner.dropFirst()
                skip(&scanner) { $0 == " " || $0 == "\t" }
                let name = take(&scanner) { !"=;, \t".unicodeScalars.contains($0) }.lowercased()
                skip(&scanner) { $0 == " " || $0 == "\t" }
                var value = ""
                if scanner.first == "=" {
                    scanner = scanner.dropFirst()
                    skip(&scanner) { $0 == " " || $0 == "\t" }
                    value = scanner.first == "\"" ? quoted(&scanner) : take(&scanner) { !";, \t".unicodeScalars.contains($0) }
                }
                // RFC 8288 §3.3: of repeated parameters the first counts.
                if !name.isEmpty, link.parameters[name] == nil { link.parameters[name] = value }
            }
            links.append(link)
            skipToNextLink(&scanner)
        }
        return links
    }

    private static func skip(_ scanner: inout ArraySlice<Unicode.Scalar>, while matches: (Unicode.Scalar) -> Bool) {
        while let first = scanner.first, matches(first) { scanner = scanner.dropFirst() }
    }

    private static func take(_ scanner: inout ArraySlice<Unicode.Scalar>, while matches: (Unicode.Scalar) -> Bool) -> String {
        var out = String.UnicodeScalarView()
        while let first = scanner.first, matches(first) {
            out.append(first)
            scanner = scanner.dropFirst()
        }
        return String(out)
    }

    /// A quoted-string from its opening quote; `\x` stands for x. Unterminated: to the end.
    private static func quoted(_ scanner: inout ArraySlice<Unicode.Scalar>) -> String {
        var out = String.UnicodeScalarView()
        scanner = scanner.dropFirst()
        while let first = scanner.first {
            scanner = scanner.dropFirst()
            if first == "\"" { break }
            if first == "\\", let escaped = scanner.first {
                out.append(escaped)
                scanner = scanner.dropFirst()
            } else {
                out.append(first)
            }
        }
        return String(out)
    }

    /// Skips to just past the next comma outside `<...>` and quotes.
    private static func skipToNextLink(_ scanner: inout ArraySlice<Unicode.Scalar>) {
        var inQuotes = false
        var inTarget = false
        while let first = scanner.first {
            scanner = scanner.dropFirst()
            if inQuotes {
                if first == "\\" { scanner = scanner.dropFirst() } else if first == "\"" { inQuotes = false }
            } else if first == "\"" {
                inQuotes = true
            } else if first == "<" {
                inTarget = true
            } else if first == ">" {
                inTarget = false
            } else if first == ",", !inTarget {
                return
            }
        }
    }
}
