/// Runs a scenario that reports several rows (one per mode or cost) if the filter lets it
/// through, and prints each row's line as soon as the family is done.
@MainActor
func runFamily(_ id: String, _ title: String, _ scenario: () -> [Report]) {
    guard options.includes(id, title: title) else { return }
    for report in scenario() {
        reports.append(report)
        if options.isJSON { print(report.jsonLine) }
    }
}
