/// A one-shot completion signal that a task awaits without blocking a thread: `wait()` returns
/// once `fire()` was called, before or after it.
package struct Signal: Sendable {
    private let stream: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation

    package init() {
        (stream, continuation) = AsyncStream.makeStream(of: Void.self)
    }

    package func fire() {
        continuation.yield()
    }

    package func wait() async {
        var iterator = stream.makeAsyncIterator()
        _ = await iterator.next()
    }
}
