/// Runs a scenario that reports several rows (a family of sizes) if the filter lets it through,
/// and prints its lines once all are known (a family computes ratios across its rows).
@MainActor
func run(_ id: String, _ title: String, rows scenario: () -> [Report]) {
    guard options.includes(id, title: title) else { return }
    for report in scenario() {
        reports.append(report)
        if options.isJSON { print(report.jsonLine) }
    }
}
