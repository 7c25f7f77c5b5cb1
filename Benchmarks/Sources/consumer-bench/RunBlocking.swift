import Dispatch

/// Runs `body` in a detached task and blocks the calling thread until it returns: how the
/// benchmark's synchronous driver times async code.
///
/// Call it only from a thread outside the cooperative pool (the main thread of this tool, which
/// never awaits): blocking one of the pool's threads could starve the task it waits for.
func runBlocking<Value: Sendable>(_ body: @escaping @Sendable () async -> Value) -> Value {
    let result = BlockingResult<Value>()
    Task.detached {
        result.value = await body()
        result.done.signal()
    }
    result.done.wait()
    // Set before `done` was signalled.
    return result.value.unsafelyUnwrapped
}

/// The value a ``runBlocking(_:)`` task hands back to the blocked thread.
private final class BlockingResult<Value>: @unchecked Sendable {
    // @unchecked: `value` is written once by the task before it signals `done`, and read by the
    // blocked thread only after `done` was signalled (the semaphore orders the two).
    var value: Value?
    let done = DispatchSemaphore(value: 0)
}
