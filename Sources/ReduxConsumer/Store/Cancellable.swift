/// Something that can be stopped: a store subscription or a consumer token.
///
/// ``ConsumerBag`` collects cancellables and cancels them all at once.
public protocol Cancellable: Sendable {
    /// Stops it. Calling `cancel()` more than once does nothing more.
    func cancel()
}

extension Cancellable {
    /// Puts this into `bag`, which cancels it when the bag is emptied or goes away.
    ///
    /// ```swift
    /// consumer.add(\.count) { old, new in print(old, "→", new) }.store(in: bag)
    /// ```
    ///
    /// - Parameter bag: The bag that will own it.
    public func store(in bag: ConsumerBag) {
        bag.insert(self)
    }
}
