/// Columns padded to their widest cell, for `heraldctl`'s human output.
public struct TextTable: Sendable {
    public var header: [String]
    public var rows: [[String]]

    public init(_ header: [String], rows: [[String]] = []) {
        self.header = header
        self.rows = rows
    }

    public var text: String {
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0.indices.contains(column) ? $0[column].count : 0 }.max() ?? 0 }
        return all.map { row in
            row.enumerated().map { index, cell in
                index == row.count - 1 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }
}
