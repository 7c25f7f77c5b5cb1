#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Yields the processor until `condition` holds: for a test that must see another thread reach a
/// state it cannot signal (such as a thread blocked inside the library). Never a timed sleep; call
/// it inside ``finishesWithoutDeadlock(within:sourceLocation:_:)`` so that a state never reached
/// fails the test instead of hanging it.
package func spin(until condition: () -> Bool) {
    while !condition() {
        sched_yield()
    }
}
