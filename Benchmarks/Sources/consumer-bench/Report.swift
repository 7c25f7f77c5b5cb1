/// What one scenario measured, ready to print as a table row or a JSON line.
struct Report {
    /// Short identifier, e.g. "S3".
    let scenario: String
    let title: String
    /// Median nanoseconds per operation (per dispatch, per add+remove cycle, per add).
    let nsPerOp: Double
    let minNsPerOp: Double
    /// Ratios to baselines, e.g. ("vs_floor", 0.4); omitted when there is no baseline.
    var ratios: [(key: String, value: Double)] = []
    /// Further figures, e.g. ("floor_ns_per_op", 3100).
    var figures: [(key: String, value: Double)] = []
    let target: String
    /// Set when a correctness check failed: the only thing that makes the run fail.
    var failure: String?
    /// Whether the figures meet `target`, for scenarios whose target is a number the run can
    /// check; `nil` when it is not checked here. A goal not met is reported, not a failure.
    var goalMet: Bool?

    /// The report with ``goalMet`` set.
    func meeting(_ isMet: Bool?) -> Report {
        var report = self
        report.goalMet = isMet
        return report
    }

    /// The figure or ratio named `key`, if the report has it.
    func value(_ key: String) -> Double? {
        (ratios + figures).first { $0.key == key }?.value
    }

    var jsonLine: String {
        var fields = ["\"scenario\": \(quoted(scenario))", "\"title\": \(quoted(title))"]
        if nsPerOp.isFinite { fields.append("\"ns_per_op\": \(number(nsPerOp))") }
        if minNsPerOp.isFinite { fields.append("\"min_ns_per_op\": \(number(minNsPerOp))") }
        for (key, value) in ratios + figures where value.isFinite {
            fields.append("\(quoted(key)): \(number(value))")
        }
        fields.append("\"target\": \(quoted(target))")
        fields.append("\"correct\": \(failure == nil)")
        if let goalMet { fields.append("\"goal_met\": \(goalMet)") }
        if let failure { fields.append("\"failure\": \(quoted(failure))") }
        return "{" + fields.joined(separator: ", ") + "}"
    }

    private func quoted(_ text: String) -> String {
        var escaped = ""
        for character in text.unicodeScalars {
            switch character {
            case "\"": escaped += "\\\""
            case "\\": escaped += "\\\\"
            case "\n": escaped += "\\n"
            default: escaped.unicodeScalars.append(character)
            }
        }
        return "\"" + escaped + "\""
    }

    private func number(_ value: Double) -> String {
        let rounded = (value * 1000).rounded() / 1000
        return rounded == rounded.rounded() && abs(rounded) < 1e15 ? String(Int(rounded)) : String(rounded)
    }
}

/// Prints reports as a fixed-width table.
struct Table {
    private static let headers = [
        "scenario", "ns/op (median)", "min", "ratios", "figures", "target", "goal", "correctness",
    ]

    static func render(_ reports: [Report]) -> String {
        var rows = [headers]
        for report in reports {
            rows.append([
                report.scenario + " " + report.title,
                format(report.nsPerOp),
                format(report.minNsPerOp),
                report.ratios.map { "\($0.key) \(format($0.value, digits: 2))×" }.joined(separator: ", "),
                report.figures.map { "\($0.key) \(format($0.value))" }.joined(separator: ", "),
                report.target,
                report.goalMet.map { $0 ? "met" : "not met" } ?? "–",
                report.failure.map { "FAIL: \($0)" } ?? "ok",
            ])
        }
        let widths = headers.indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.enumerated().map { index, row in
            let line = row.enumerated().map { column, cell in
                cell + String(repeating: " ", count: widths[column] - cell.count)
            }.joined(separator: " | ")
            return index == 0 ? line + "\n" + String(repeating: "-", count: line.count) : line
        }.joined(separator: "\n")
    }

    static func format(_ value: Double, digits: Int = 1) -> String {
        guard value.isFinite else { return "–" }
        if value >= 100 { return String(Int(value.rounded())) }
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let rounded = (value * scale).rounded() / scale
        return String(rounded)
    }
}
