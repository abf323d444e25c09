/// Bitrates as people write them: `2500000`, `2500k`, `2.5M` (SI: k = 1000).
public enum BitrateText {
    public static func parse(_ text: String) -> Int? {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        var number = Substring(trimmed)
        var scale = 1.0
        if let last = number.last, last == "k" || last == "m" {
            scale = last == "k" ? 1e3 : 1e6
            number = number.dropLast()
        }
        guard let value = Double(number), value.isFinite, value > 0 else { return nil }
        let bits = value * scale
        guard bits >= 1000, bits <= 100e6 else { return nil }
        return Int(bits)
    }
}

import Foundation
