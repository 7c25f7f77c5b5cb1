#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// N1: N selectors on distinct slots, 1%, 10% or 100% of them firing per dispatch, in one
/// consumer or in N consumers, key paths and closures, each row against its floor; then, at the
/// first fraction only (1%), closure values (see ``SelectorKind/closureValue``).
///
/// The rows of one selector kind and fraction (both layouts, every N) are measured together,
/// interleaved, so that the growth and "N consumers ÷ 1 consumer" are in-run ratios; they are
/// listed series by series, N growing, so the growth column reads down.
func scalingFamily(_ sizes: ScalingSizes) -> [Report] {
    var rows: [Report] = []
    for selector in [SelectorKind.keyPath, .closure] {
        for period in sizes.firingPeriods {
            rows += scalingSeriesPair(sizes, id: "N1", selector: selector, firing: .slots(period: period))
        }
    }
    if let period = sizes.firingPeriods.first {
        rows += scalingSeriesPair(sizes, id: "N1", selector: .closureValue, firing: .slots(period: period))
    }
    return rows
}

/// N2: N consumers × 1 member against 1 consumer × N members, all on one key path, when it
/// changed and when it did not (the service pattern: every page watching the same global field).
func oneKeyPathFamily(_ sizes: ScalingSizes) -> [Report] {
    var rows: [Report] = []
    for changes in [true, false] {
        rows += scalingSeriesPair(sizes, id: "N2", selector: .keyPath, firing: .sharedKeyPath(changes: changes))
    }
    return rows
}

/// Measures both layouts for every N, all interleaved, then reports the one-consumer series and
/// the N-consumer series.
private func scalingSeriesPair(_ sizes: ScalingSizes, id: String, selector: SelectorKind, firing: Firing) -> [Report] {
    let rows = [ConsumerLayout.oneConsumer, .consumerPerSelector].flatMap { layout in
        sizes.selectorCounts.map { ScalingRow(layout: layout, selector: selector, selectors: $0, firing: firing) }
    }
    let measurements = measure(rows, within: sizes.budget)
    let count = sizes.selectorCounts.count
    let single = Array(measurements[..<count])
    let spread = Array(measurements[count...])
    let singleReports = single.indices.map { index in
        scalingReport(single[index], id: id, previous: index > 0 ? single[index - 1] : nil, oneConsumer: nil)
    }
    let spreadReports = spread.indices.map { index in
        scalingReport(spread[index], id: id, previous: index > 0 ? spread[index - 1] : nil, oneConsumer: single[index])
    }
    return singleReports + spreadReports
}

/// A row of N1 or N2: its median against the floor, its growth from the row at N/10 (beside the
/// floor's), and for N consumers, its ratio to one consumer with the same N members.
private func scalingReport(
    _ measurement: ScalingMeasurement,
    id: String,
    previous: ScalingMeasurement?,
    oneConsumer: ScalingMeasurement?
) -> Report {
    var ratios = [("vs_floor", measurement.nsPerDispatch / measurement.floor.timing.median)]
    if let oneConsumer {
        ratios.append(("vs_1_consumer", measurement.nsPerDispatch / oneConsumer.nsPerDispatch))
    }
    if let previous {
        ratios.append(("growth", measurement.nsPerDispatch / previous.nsPerDispatch))
        // The floor's own growth. Not what the machine's caches make of ten times the data: each
        // of the floor's steps retains and releases a closure context, which hides the wait for
        // memory; N4's reference loops show the caches' part (see `cacheReference(_:)`).
        ratios.append(("floor_growth", measurement.floor.timing.median / previous.floor.timing.median))
    }
    var figures = [
        ("ns_per_callback", measurement.nsPerCallback),
        ("floor_ns_per_op", measurement.floor.timing.median),
        ("dispatches", Double(measurement.library.operations)),
    ]
    if measurement.library.isSingleSample {
        figures.append(("single_sample", 1))
    }
    return Report(
        scenario: id,
        title: measurement.row.title,
        nsPerOp: measurement.nsPerDispatch,
        minNsPerOp: measurement.library.timing.min,
        ratios: ratios,
        figures: figures.filter { $0.1.isFinite },
        target: oneConsumer == nil ? "growth ≤ 11×" : "growth ≤ 11×, ≤ 1.5× 1 consumer",
        failure: measurement.failure
    ).meeting(scalingGoalMet(ratios))
}

/// Whether a scaling row's growth (≤ 11×) and its ratio to one consumer (≤ 1.5×) meet their
/// goals; `nil` for a row with neither (the smallest N of one consumer).
private func scalingGoalMet(_ ratios: [(key: String, value: Double)]) -> Bool? {
    let limits = ["growth": 11.0, "vs_1_consumer": 1.5]
    let checked = ratios.filter { limits[$0.key] != nil }
    guard !checked.isEmpty else { return nil }
    return checked.allSatisfy { $0.value <= limits[$0.key]! }
}

/// N3: one consumer whose closure selectors all change on every dispatch, for growing counts:
/// the cost of delivering many fired groups at once. The exponent says how the cost grows from
/// the row before (1 is linear, 2 quadratic).
func manyGroupsFire(_ sizes: ScalingSizes) -> [Report] {
    let rows = sizes.manyGroupCounts.map { selectors in
        ScalingRow(layout: .oneConsumer, selector: .closure, selectors: selectors, firing: .slots(period: 1))
    }
    let measurements = measure(rows, within: sizes.budget)
    return measurements.indices.map { index in
        let measurement = measurements[index]
        var figures = [
            ("ns_per_callback", measurement.nsPerCallback),
            ("floor_ns_per_op", measurement.floor.timing.median),
        ]
        if index > 0 {
            let previous = measurements[index - 1]
            let exponent =
                log(measurement.nsPerDispatch / previous.nsPerDispatch)
                / log(Double(measurement.row.selectors) / Double(previous.row.selectors))
            figures.append(("growth_exponent", exponent))
        }
        return Report(
            scenario: "N3",
            title: "1 consumer, \(measurement.row.selectors) closure selectors, all fire",
            nsPerOp: measurement.nsPerDispatch,
            minNsPerOp: measurement.library.timing.min,
            ratios: [("vs_floor", measurement.nsPerDispatch / measurement.floor.timing.median)],
            figures: figures,
            target: "linear: growth exponent ≤ 1.2",
            failure: measurement.failure
        ).meeting(figures.first { $0.0 == "growth_exponent" }.map { $0.1 <= 1.2 })
    }
}
