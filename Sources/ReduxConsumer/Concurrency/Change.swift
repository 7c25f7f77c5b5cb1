/// A change of a selected value, as async sequences of changes deliver it: the value before and
/// the value after.
public struct Change<Value: Sendable>: Sendable {
    /// The value before the change: the previous element's ``new``, or the starting value.
    public let old: Value
    /// The value after the change.
    public let new: Value

    /// Creates a change.
    ///
    /// - Parameters:
    ///   - old: The value before.
    ///   - new: The value after.
    @inlinable
    public init(old: Value, new: Value) {
        self.old = old
        self.new = new
    }
}

extension Change: Equatable where Value: Equatable {}

extension Change: Hashable where Value: Hashable {}
