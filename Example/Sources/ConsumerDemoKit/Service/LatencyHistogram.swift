/// Latencies in power-of-two buckets of nanoseconds: constant memory, percentiles within 2×.
struct LatencyHistogram: Sendable {
    private var buckets = [Int](repeating: 0, count: 65)
    private var count = 0
    private var total: UInt64 = 0
    private var maximum: UInt64 = 0

    mutating func record(_ nanoseconds: UInt64) {
        buckets[UInt64.bitWidth - nanoseconds.leadingZeroBitCount] += 1
        count += 1
        total &+= nanoseconds
        maximum = max(maximum, nanoseconds)
    }

    /// An upper bound of the `fraction` percentile: the top of its bucket.
    func percentile(_ fraction: Double) -> UInt64 {
        let rank = Int((Double(count) * fraction).rounded(.up))
        var seen = 0
        for (bucket, inBucket) in buckets.enumerated() {
            seen += inBucket
            if seen >= rank, inBucket > 0 {
                return bucket == 0 ? 0 : min(maximum, (1 << UInt64(bucket)) - 1)
            }
        }
        return maximum
    }

    var summary: Summary {
        Summary(
            count: count,
            meanNanoseconds: count == 0 ? 0 : Double(total) / Double(count),
            p50Nanoseconds: percentile(0.5),
            p99Nanoseconds: percentile(0.99),
            maxNanoseconds: maximum
        )
    }

    struct Summary: Equatable, Sendable, Codable {
        var count: Int
        var meanNanoseconds: Double
        /// Upper bounds (the top of their power-of-two bucket).
        var p50Nanoseconds: UInt64
        var p99Nanoseconds: UInt64
        var maxNanoseconds: UInt64
    }
}
