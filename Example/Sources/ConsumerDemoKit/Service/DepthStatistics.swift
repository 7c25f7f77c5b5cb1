/// The queue depth seen by each action as it began.
struct DepthStatistics: Sendable {
    private var samples = 0
    private var total = 0
    private var maximum = 0

    mutating func record(_ depth: Int) {
        samples += 1
        total += depth
        maximum = max(maximum, depth)
    }

    var summary: Summary {
        Summary(mean: samples == 0 ? 0 : Double(total) / Double(samples), max: maximum)
    }

    struct Summary: Equatable, Sendable, Codable {
        var mean: Double
        var max: Int
    }
}
