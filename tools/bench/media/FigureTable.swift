import Foundation

/// A Markdown table: what the benchmark prints and the README quotes.
struct FigureTable {
    let columns: [String]
    private var rows: [[String]] = []

    init(_ columns: [String]) { self.columns = columns }

    mutating func add(_ cells: [String]) {
        precondition(cells.count == columns.count, "a row needs one cell per column")
        rows.append(cells)
    }

    var text: String {
        let widths = columns.indices.map { column in
            ([columns[column]] + rows.map { $0[column] }).map(\.count).max() ?? 0
        }
        func line(_ cells: [String]) -> String {
            "| " + cells.indices.map { cells[$0].padding(toLength: widths[$0], withPad: " ", startingAt: 0) }
                .joined(separator: " | ") + " |"
        }
        let rule = "|" + widths.map { String(repeating: "-", count: $0 + 2) }.joined(separator: "|") + "|"
        return ([line(columns), rule] + rows.map(line)).joined(separator: "\n")
    }
}

/// `%.Nf` without Foundation's variadic formatting at every call site.
func fixed(_ value: Double, _ digits: Int = 1) -> String {
    value.isFinite ? String(format: "%.\(digits)f", value) : "-"
}
