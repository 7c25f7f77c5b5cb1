#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Android)
    import Android
#endif

/// A moment on the wall clock, as `pthread_cond_timedwait` expects it.
package struct Deadline: Sendable {
    let time: timespec

    /// The moment `seconds` from now, at most a day: `.infinity` is a day, and negative values and
    /// NaN mean now.
    package init(secondsFromNow seconds: Double) {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let delay = Self.clamped(seconds)
        let whole = Int(delay)
        var nanoseconds = Int(now.tv_nsec) + Int((delay - Double(whole)) * 1_000_000_000)
        var secondsPart = Int(now.tv_sec) + whole
        if nanoseconds >= 1_000_000_000 {
            nanoseconds -= 1_000_000_000
            secondsPart += 1
        }
        time = timespec(tv_sec: .init(secondsPart), tv_nsec: .init(nanoseconds))
    }

    /// `seconds` within `0...86_400` (a day): `.infinity` and anything longer are a day, negative
    /// values and NaN are 0.
    package static func clamped(_ seconds: Double) -> Double {
        seconds.isNaN ? 0 : min(max(seconds, 0), 86_400)
    }

    /// Whether the moment has come.
    package var hasPassed: Bool {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return (now.tv_sec, now.tv_nsec) >= (time.tv_sec, time.tv_nsec)
    }
}
