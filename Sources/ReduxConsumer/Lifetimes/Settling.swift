/// A handle of the library that can tell when cancelling it would do nothing more, so that a
/// ``ConsumerBag`` may let go of it before it is emptied.
///
/// The answer must take no lock a caller of it may hold and call no user code: a bag asks under
/// its own lock.
protocol Settling {
    /// Whether another `cancel()` would end nothing and wait for nothing.
    var isSettled: Bool { get }
}
